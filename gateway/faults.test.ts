import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { runBuild } from "../build/run.ts";
import { createDirSource } from "../build/sources/dir.ts";
import { memoryLogger } from "../logging/log.ts";
import { openStorage } from "../storage/open.ts";
import { describeEdgar, makeOverlayMirror } from "../test/_edgar.ts";
import { removeDir, startS3, type S3Server } from "../test/_s3.ts";
import { testGateway } from "../test/_gateway.ts";

// Faults under load (issue 8): requests keep flowing while a new snapshot is published, and while storage goes
// away and comes back. Every answer is a 200 or a 503 with the error body; nothing fails otherwise.

const TICKERS = ["AAPL", "WMT", "HD", "DIS", "JNJ"];
const PATHS = ["/filings/latest?ticker=AAPL", "/earnings/summary?ticker=WMT", "/insiders?ticker=JNJ", "/earnings/summary?ticker=HD&period=quarterly", "/filings/latest?ticker=DIS&limit=5", "/probe?ticker=HD"];

describeEdgar("faults under load", () => {
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
  const build = (location: string, env: Record<string, string>, minute: number) =>
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
    const first = await build(data, {}, 0);
    const gw = testGateway(data);
    const { key } = await gw.keys.create(null);
    gw.snapshots.watch(10);
    const { statuses } = await load(gw, { authorization: `Bearer ${key}` }, async () => {
      await new Promise((r) => setTimeout(r, 300));
      const second = await build(data, {}, 1);
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
    await build(location, s3.env, 0);
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
  }, 60_000);
});
