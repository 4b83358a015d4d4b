import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runBuild } from "../build/run.ts";
import { createDirSource } from "../build/sources/dir.ts";
import { memoryLogger } from "../logging/log.ts";
import { openStorage } from "../storage/open.ts";
import { describeEdgar, makeOverlayMirror } from "../test/_edgar.ts";
import { removeDir, startS3, type S3Server } from "../test/_s3.ts";
import { testGateway } from "../test/_gateway.ts";
import { main as keysMain } from "./keys-cli.ts";
import { ByteLru } from "./lru.ts";

const build = (mirror: string, data: string, tickers: string[], minute: number) =>
  runBuild({
    source: createDirSource(mirror),
    storage: openStorage(data),
    log: memoryLogger(),
    tickers,
    now: () => new Date(Date.UTC(2026, 6, 1, 12, minute)),
  });

describeEdgar("the gateway's snapshot", () => {
  let mirror: string;
  let s3: S3Server;
  const dirs: string[] = [];
  beforeAll(async () => {
    mirror = makeOverlayMirror();
    s3 = await startS3();
  });
  afterAll(async () => {
    await s3?.stop();
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
      storage: openStorage(location, s3.env),
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
  }, 60_000);

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
