import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { runBuild } from "../../build/pipeline/run.ts";
import { createDirSource } from "../../build/sources/dir.ts";
import { memoryLogger } from "../../test/_logger.ts";
import { openStorage } from "../../storage/open.ts";
import { describeEdgar, makeOverlayMirror } from "../../test/_edgar.ts";
import { removeDir, startConditionalS3, startS3, type ConditionalS3, type S3Server } from "../../test/_s3.ts";
import { testGateway } from "../../test/_gateway.ts";
import { main as keysMain } from "./keys-cli.ts";
import { ByteLru } from "../http/lru.ts";

const build = (mirror: string, data: string, tickers: string[], minute: number) =>
  runBuild({
    source: createDirSource(mirror),
    storage: openStorage(data),
    log: memoryLogger(),
    tickers,
    now: () => new Date(Date.UTC(2026, 6, 1, 12, minute)),
  });

// Faults under load (issue 8): requests keep flowing while a new snapshot is published, and while storage goes
// away and comes back. Every answer is a 200 or a 503 with the error body; nothing fails otherwise.
const TICKERS = ["AAPL", "WMT", "HD", "DIS", "JNJ"];
const PATHS = ["/filings/latest?ticker=AAPL", "/earnings/summary?ticker=WMT", "/insiders?ticker=JNJ", "/earnings/summary?ticker=HD&period=quarterly", "/filings/latest?ticker=DIS&limit=5", "/probe?ticker=HD"];

describeEdgar("the gateway's snapshot", () => {
  let mirror: string;
  let s3: S3Server;
  /** Builds publish through the stand-in that adds S3's conditional writes (their lease needs them); gateways read s3rver. */
  let conditional: ConditionalS3;
  const dirs: string[] = [];
  beforeAll(async () => {
    mirror = makeOverlayMirror();
    s3 = await startS3();
    conditional = await startConditionalS3(s3);
  });
  afterAll(async () => {
    await conditional?.stop();
    await s3?.close();
    [mirror, ...dirs].forEach(removeDir);
  });

  it("switches to a new current.json without a restart", async () => {
    const data = mkdtempSync(join(tmpdir(), "switch-"));
    dirs.push(data);
    const first = await build(mirror, data, ["AAPL"], 0);
    const gw = testGateway(data);
    const { key } = await gw.keys.create(null);
    const probe = async () => (await (await gw.get("/probe")).json()).data;
    expect((await probe()).snapshot.build_id).toBe(first.build_id);
    expect((await gw.get("/filings/latest?ticker=WMT", { headers: { "x-api-key": key } })).status).toBe(404);
    const second = await build(mirror, data, ["AAPL", "WMT"], 1);
    gw.snapshots.watch(20);
    await expect.poll(async () => (await probe()).snapshot.build_id, { timeout: 3000 }).toBe(second.build_id);
    expect((await gw.get("/filings/latest?ticker=WMT", { headers: { "x-api-key": key } })).status).toBe(200);
    expect(gw.logs.some((l) => l.event === "snapshot_loaded" && l.fields.previous === first.build_id)).toBe(true);
    gw.close();
  });

  it("keeps serving what it holds when storage goes away, answers 503 for the rest, and recovers", async () => {
    const location = `s3://${s3.bucket}/outage`;
    await runBuild({
      source: createDirSource(mirror),
      storage: openStorage(location, conditional.env),
      log: memoryLogger(),
      tickers: ["AAPL", "WMT"],
      now: () => new Date("2026-07-01T12:00:00Z"),
    });
    const gw = testGateway(location, { env: s3.env });
    const { key } = await gw.keys.create(null);
    const auth = { headers: { authorization: `Bearer ${key}` } };
    expect((await gw.get("/filings/latest?ticker=AAPL", auth)).status).toBe(200); // AAPL's filings now in memory
    await s3.stop();
    const held = await gw.get("/filings/latest?ticker=AAPL&limit=2", auth);
    expect(held.status).toBe(200);
    expect((await held.json()).meta.cache).toBe("hit");
    expect((await gw.get("/probe?ticker=WMT")).status).toBe(200); // the manifest is held too
    const cold = await gw.get("/earnings/summary?ticker=WMT", auth);
    expect(cold.status).toBe(503);
    expect((await cold.json()).error.code).toBe("storage_unavailable");
    await s3.restart();
    expect((await gw.get("/earnings/summary?ticker=WMT", auth)).status).toBe(200);
    gw.close();
  }, 120_000);

  const buildUnderLoad = (location: string, env: Record<string, string>, minute: number) =>
    runBuild({ source: createDirSource(mirror), storage: openStorage(location, env), log: memoryLogger(), tickers: TICKERS, now: () => new Date(Date.UTC(2026, 6, 1, 12, minute)) });

  /** Keeps `concurrency` requests in flight until `stop()` resolves; returns every status seen. */
  async function load(gw: ReturnType<typeof testGateway>, headers: Record<string, string>, during: () => Promise<void>, concurrency = 20) {
    const statuses: number[] = [];
    const bodies: string[] = [];
    let running = true;
    const worker = async (w: number) => {
      for (let i = w; running; i += concurrency) {
        const res = await gw.get(PATHS[i % PATHS.length]!, { headers });
        statuses.push(res.status);
        if (res.status !== 200) bodies.push(await res.text());
        else await res.arrayBuffer();
        // app.fetch answers a held document in microtasks alone; yield as a socket would, or timers starve.
        await new Promise((r) => setImmediate(r));
      }
    };
    const workers = Array.from({ length: concurrency }, (_, w) => worker(w));
    await during();
    running = false;
    await Promise.all(workers);
    return { statuses, bodies };
  }

  it("a snapshot switch under load fails no request", async () => {
    const data = mkdtempSync(join(tmpdir(), "switch-load-"));
    dirs.push(data);
    const first = await buildUnderLoad(data, {}, 0);
    const gw = testGateway(data);
    const { key } = await gw.keys.create(null);
    gw.snapshots.watch(10);
    const { statuses } = await load(gw, { authorization: `Bearer ${key}` }, async () => {
      await new Promise((r) => setTimeout(r, 300));
      const second = await buildUnderLoad(data, {}, 1);
      await expect.poll(() => gw.snapshots.held?.pointer.build_id, { timeout: 3000 }).toBe(second.build_id);
      await new Promise((r) => setTimeout(r, 300));
      expect(second.build_id).not.toBe(first.build_id);
    });
    expect(statuses.length).toBeGreaterThan(100);
    expect(new Set(statuses)).toEqual(new Set([200]));
    gw.close();
  }, 60_000);

  it("storage stopped under load: 503s with the error body, then recovery by itself", async () => {
    const location = `s3://${s3.bucket}/load`;
    await buildUnderLoad(location, conditional.env, 0);
    // No document cache: every answer reads storage, so the outage shows on every document request.
    const gw = testGateway(location, { env: { ...s3.env, DOCUMENT_CACHE_MB: "0" } });
    const { key } = await gw.keys.create(null);
    const { statuses, bodies } = await load(gw, { authorization: `Bearer ${key}` }, async () => {
      await new Promise((r) => setTimeout(r, 200));
      await s3.stop();
      await new Promise((r) => setTimeout(r, 500));
      await s3.restart();
      await new Promise((r) => setTimeout(r, 300));
    });
    expect(new Set(statuses)).toEqual(new Set([200, 503]));
    for (const body of bodies) expect(JSON.parse(body).error.code).toBe("storage_unavailable");
    // By itself, with nothing restarted on the gateway: every path answers again, including documents not yet held.
    for (const path of [...PATHS, "/earnings/summary?ticker=DIS"]) expect((await gw.get(path, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
    gw.close();
  }, 120_000);

  it("answers 503 storage_unavailable when nothing was ever published", async () => {
    const empty = mkdtempSync(join(tmpdir(), "empty-"));
    dirs.push(empty);
    const gw = testGateway(empty);
    const res = await gw.get("/filings/latest?ticker=AAPL");
    expect(res.status).toBe(503);
    expect((await res.json()).error.code).toBe("storage_unavailable");
    expect((await (await gw.get("/health")).json()).data).toMatchObject({ status: "ok", snapshot: null });
  });
});

describe("keys CLI", () => {
  it("creates a key shown once alone on the last line, lists without secrets, revokes", async () => {
    const data = mkdtempSync(join(tmpdir(), "keys-"));
    const out: string[] = [];
    const print = (line: string) => void out.push(line);
    expect(await keysMain(["create", "--label", "acme", "--data", data], {}, print)).toBe(0);
    const key = out.at(-1)!;
    expect(key).toMatch(/^fds_[A-Za-z0-9_-]{43}$/);
    out.length = 0;
    expect(await keysMain(["list", "--data", data], {}, print)).toBe(0);
    expect(out.join("\n")).toMatch(/^[0-9a-f]{12} {2}created \S+ {2}active {2}acme\n1 keys$/);
    expect(out.join("\n")).not.toContain(key);
    expect(await keysMain(["revoke", key, "--data", data], {}, print)).toBe(0);
    out.length = 0;
    await keysMain(["list", "--data", data], {}, print);
    expect(out[0]).toMatch(/revoked/);
    expect(await keysMain(["revoke", "fds_nope", "--data", data], {}, print)).toBe(1);
    expect(await keysMain(["frob", "--data", data], {}, print)).toBe(2);
    removeDir(data);
  });
});

describe("keys CLI configuration", () => {
  it("validates the store's variables as the gateway does: a bad one is exit 2 naming each, a failed command exit 1, never a throw", async () => {
    const errors: string[] = [];
    const spy = vi.spyOn(console, "error").mockImplementation((line: string) => void errors.push(line));
    try {
      const print = () => {};
      expect(await keysMain(["list"], { DATA_URL: "http://x", S3_FORCE_PATH_STYLE: "maybe" }, print)).toBe(2);
      expect(errors.pop()).toMatch(/^bad configuration: DATA_URL must be a folder, fs:PATH or s3:\/\/bucket\/prefix, not "http:\/\/x"; S3_FORCE_PATH_STYLE must be true or false \(or 1 or 0\)\nusage: /);
      expect(await keysMain(["list", "--data", "s3://b"], {}, print)).toBe(2);
      expect(errors.pop()).toMatch(/^storage location must name an S3 bucket/);
      // A store that cannot be read: an S3 endpoint that refuses connections.
      expect(await keysMain(["list", "--data", "s3://filing-data/x"], { S3_ENDPOINT: "http://127.0.0.1:1", S3_FORCE_PATH_STYLE: "true" }, print)).toBe(1);
      expect(errors.pop()).toMatch(/^keys list failed: /);
    } finally {
      spy.mockRestore();
    }
  });
});

describe("document cache", () => {
  it("drops the least recently used entries past its byte budget", () => {
    const lru = new ByteLru<string>(100);
    lru.set("a", "A", 40);
    lru.set("b", "B", 40);
    expect(lru.get("a")).toBe("A"); // a is now the most recent
    lru.set("c", "C", 40);
    expect([lru.get("a"), lru.get("b"), lru.get("c")]).toEqual(["A", undefined, "C"]);
    lru.set("huge", "H", 101);
    expect(lru.get("huge")).toBeUndefined();
    expect(lru.bytes).toBe(80);
  });
});
