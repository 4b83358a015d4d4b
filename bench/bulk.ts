// Benchmark: a build of N companies (10,000 by default) from scaled bulk archives (bench/_bulk-archives.ts), against
// bare JSON.parse of the same uncompressed entries in the same run; peak RSS of the whole process; the build's CPU time.
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger } from "../logging/log.ts";
import { parseCompanyTickers } from "../build/parse/tickers.ts";
import { defaultWorkers } from "../build/pipeline/compute.ts";
import { runBuild } from "../build/pipeline/run.ts";
import { createBulkSource } from "../build/sources/bulk.ts";
import { createDirSource } from "../build/sources/dir.ts";
import { companyFactsPath, submissionsPath, TICKERS_PATH } from "../build/sources/paths.ts";
import { openStorage } from "../storage/open.ts";
import { MIRROR } from "../test/_edgar-files.ts";
import { bulkArchives, FILED_SINCE } from "./_bulk-archives.ts";

// No Form 4 falls in a one-day look-back from this day (the mirror's newest is from 2026), so the build reads
// only the archives: the Form 4 part is measured by `bench build`, not here.
const NOW = () => new Date("2027-06-01T00:00:00.000Z");

/**
 * Builds `args[0]` companies (default 10000) from the archives, then times JSON.parse over the same entries. With
 * `--baseline`, the same build without the screen timelines too, in the order without, with, with, without (issue 40:
 * the screens ≤ 10 % slower than without).
 */
export async function run(args: string[]): Promise<Record<string, unknown>> {
  if (!MIRROR.present) throw new Error(`the shared EDGAR mirror is absent from ${MIRROR.dir} (set EDGAR_MIRROR)`);
  const baseline = args.includes("--baseline");
  const [companiesArg, concurrencyArg, workersArg] = args.filter((a) => a !== "--baseline");
  const companies = Number(companiesArg ?? 10_000);
  const concurrency = Number(concurrencyArg ?? 8);
  const workers = workersArg === undefined ? undefined : Number(workersArg);
  const folder = await bulkArchives(companies);
  const source = createBulkSource(folder, createDirSource(MIRROR.dir));
  const build = async (screenTimelines: boolean) => {
    const out = mkdtempSync(join(tmpdir(), "bench-bulk-out-"));
    try {
      const t0 = performance.now();
      const cpu0 = process.cpuUsage(); // every thread of the process: the workers' too
      const summary = await runBuild({ source, storage: openStorage(out), log: createLogger("error"), now: NOW, lookbackDays: 1, concurrency, workers, screenTimelines });
      const cpu = process.cpuUsage(cpu0);
      return { summary, seconds: (performance.now() - t0) / 1000, cpuSeconds: (cpu.user + cpu.system) / 1e6, peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024) };
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  };
  try {
    // With --baseline the builds run without, with, with, without (ABBA): a drift of the machine's load over the run
    // weighs on both sides alike. The without-peak is the first build's (the process's peak only grows).
    const first = baseline ? await build(false) : null;
    const { summary, seconds, cpuSeconds, peakRssMb } = await build(true);
    const second = baseline ? await build(true) : null;
    const last = baseline ? await build(false) : null;
    const without = first && last && { seconds: first.seconds + last.seconds, cpuSeconds: first.cpuSeconds + last.cpuSeconds, peakRssMb: first.peakRssMb };
    const withBoth = second && { seconds: seconds + second.seconds, cpuSeconds: cpuSeconds + second.cpuSeconds };
    const { parseSeconds, readSeconds, readCpuSeconds, mb } = await timeBareParse(source);
    return {
      companies,
      covered: summary.covered,
      uncompressed_mb: Math.round(mb),
      archive_mb: Math.round((statSync(join(folder, "submissions.zip")).size + statSync(join(folder, "companyfacts.zip")).size) / 1e6),
      filed_since: FILED_SINCE,
      concurrency,
      workers: workers ?? defaultWorkers(companies, concurrency),
      seconds: round(seconds),
      parse_seconds: round(parseSeconds),
      ratio: round(seconds / parseSeconds, 2),
      // Reading the same entries out of the archives (inflating and decoding them), one after another, against
      // JSON.parse, in time and in CPU time (every thread's, zlib's included): part of every build's floor.
      read_seconds: round(readSeconds),
      read_ratio: round(readSeconds / parseSeconds, 2),
      read_cpu_ratio: round(readCpuSeconds / parseSeconds, 2),
      // Whether the build kept the cores busy (1.0: every core all the time), and its CPU time against JSON.parse's.
      cpu_seconds: round(cpuSeconds),
      cores_busy: round(cpuSeconds / seconds / availableParallelism(), 2),
      peak_rss_mb: peakRssMb,
      // The same build without the screen timelines, before and after the two with them (peak RSS: the first's).
      ...(without &&
        withBoth && {
          without_timelines: { seconds: [round(first!.seconds), round(last!.seconds)], cpu_seconds: round(without.cpuSeconds / 2), peak_rss_mb: without.peakRssMb },
          with_timelines_seconds: [round(seconds), round(second!.seconds)],
          timelines_ratio: round(withBoth.seconds / without.seconds, 2),
          timelines_cpu_ratio: round(withBoth.cpuSeconds / without.cpuSeconds, 2),
        }),
    };
  } finally {
    await source.close();
  }
}

/**
 * Sums the time of JSON.parse alone over every company's two entries, and apart the time of reading them out of the
 * archives (its CPU time: the whole loop's less JSON.parse's, which is all CPU).
 */
async function timeBareParse(source: ReturnType<typeof createBulkSource>): Promise<{ parseSeconds: number; readSeconds: number; readCpuSeconds: number; mb: number }> {
  const ciks = [...parseCompanyTickers(await source.getText(TICKERS_PATH)).byTicker.values()].map((e) => e.cik);
  const cpu0 = process.cpuUsage();
  let [parseMs, readMs] = [0, 0];
  let bytes = 0;
  for (const cik of ciks) {
    for (const path of [companyFactsPath(cik), submissionsPath(cik)]) {
      const t0 = performance.now();
      const text = await source.getText(path);
      const t1 = performance.now();
      JSON.parse(text);
      parseMs += performance.now() - t1;
      readMs += t1 - t0;
      bytes += text.length;
    }
  }
  const cpu = process.cpuUsage(cpu0);
  return { parseSeconds: parseMs / 1000, readSeconds: readMs / 1000, readCpuSeconds: (cpu.user + cpu.system) / 1e6 - parseMs / 1000, mb: bytes / 1e6 };
}

function round(n: number, digits = 1): number {
  return Math.round(n * 10 ** digits) / 10 ** digits;
}
