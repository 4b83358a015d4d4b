// Benchmark: the whole shared mirror (every ticker of company_tickers.json) built through the dir source into a
// temporary folder, twice; tickers per second, peak RSS, and the second build's requests (the Form 4 cache at work).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger } from "../logging/log.ts";
import { runBuild } from "../build/pipeline/run.ts";
import { createDirSource } from "../build/sources/dir.ts";
import { openStorage } from "../storage/open.ts";
import { makeOverlayMirror, MIRROR } from "../test/_edgar-files.ts";

/** Runs two full builds of the mirror (with the test overlay, so JNJ's real Form 4s are in play). */
export async function run(): Promise<Record<string, unknown>> {
  if (!MIRROR.present) throw new Error(`the shared EDGAR mirror is absent from ${MIRROR.dir} (set EDGAR_MIRROR)`);
  const mirror = makeOverlayMirror(undefined, MIRROR.dir);
  const out = mkdtempSync(join(tmpdir(), "bench-build-"));
  try {
    const storage = openStorage(out);
    const log = createLogger("error");
    const first = createDirSource(mirror);
    const t0 = performance.now();
    const a = await runBuild({ source: first, storage, log });
    const seconds = (performance.now() - t0) / 1000;
    const second = createDirSource(mirror);
    const b = await runBuild({ source: second, storage, log });
    return {
      tickers: a.tickers,
      covered: a.covered,
      seconds: round(seconds),
      tickers_per_s: round(a.tickers / seconds),
      peak_rss_mb: round(process.resourceUsage().maxRSS / 1024),
      first_build_requests: a.requests,
      second_build_requests: b.requests,
      form4_requests_saved: a.requests - b.requests,
    };
  } finally {
    rmSync(mirror, { recursive: true, force: true });
    rmSync(out, { recursive: true, force: true });
  }
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}
