// Benchmark: /screen over the bulk benchmark's universe (issue 40). A full build of N companies (10,000 by default)
// from the generated archives (bench/_bulk-archives.ts) makes the cross-company documents; the gateway as deployed
// (its own process) then serves keyed /screen calls — a few screens an agent asks for, the first 50 rows of each —
// and, in turns, the paid per-company route (keyed /filings/latest, 20 filings), 50 connections. Goals: /screen p99
// ≤ 20 ms and ≥ 0.5× the per-company route's requests per second.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { createLogger } from "../logging/log.ts";
import { runBuild } from "../build/pipeline/run.ts";
import { createBulkSource } from "../build/sources/bulk.ts";
import { createDirSource } from "../build/sources/dir.ts";
import { KeyStore } from "../gateway/payment/keys.ts";
import { openStorage } from "../storage/open.ts";
import { MIRROR } from "../test/_edgar-files.ts";
import { startGatewayProcess } from "../test/_gateway-process.ts";
import { bulkArchives } from "./_bulk-archives.ts";
import { flag } from "./_server-process.ts";
import { loadAverage, median, round2 } from "./_stats.ts";

/** The bulk archives' companies file from 2024 on: these frames hold most of them. */
const SCREENS = [
  "/screen?metric=revenue&period=CY2024Q4",
  "/screen?metric=net_income&period=CY2024&order=asc",
  "/screen?metric=free_cash_flow&period=ttm&max=0",
  "/screen?metric=total_assets&period=CY2025Q1&min=1000000000",
];
const NOW = () => new Date("2027-06-01T00:00:00.000Z");

/** `--companies N` (10000), `--cycles N` (6), `--seconds N` per slice (3), `--connections N` (50). */
export async function run(args: string[]): Promise<Record<string, unknown>> {
  if (!MIRROR.present) throw new Error(`the shared EDGAR mirror is absent from ${MIRROR.dir} (set EDGAR_MIRROR)`);
  const companies = Number(flag(args, "--companies") ?? 10_000);
  const cycles = Number(flag(args, "--cycles") ?? 6);
  const seconds = Number(flag(args, "--seconds") ?? 3);
  const connections = Number(flag(args, "--connections") ?? 50);
  const folder = await bulkArchives(companies);
  const out = mkdtempSync(join(tmpdir(), "bench-screen-"));
  const source = createBulkSource(folder, createDirSource(MIRROR.dir));
  let gateway: Awaited<ReturnType<typeof startGatewayProcess>> | null = null;
  try {
    const t0 = performance.now();
    const summary = await runBuild({ source, storage: openStorage(out), log: createLogger("error"), now: NOW, lookbackDays: 1, concurrency: 8 });
    const buildSeconds = (performance.now() - t0) / 1000;
    const { key } = await new KeyStore(openStorage(out)).create("bench-screen");
    gateway = await startGatewayProcess({ DATA_URL: out, FREE_RATE_PER_MINUTE: "0" });
    const headers = { authorization: `Bearer ${key}` };
    const slice = async (requests: { method: "GET"; path: string }[], duration: number) => {
      const result = await autocannon({ url: gateway!.url, connections, duration, headers, requests });
      if (result.errors || result.non2xx) throw new Error(`${requests[0]!.path}: ${result.errors} errors, ${result.non2xx} non-2xx`);
      return { rps: result.requests.average, p99_ms: result.latency.p99 };
    };
    const screens = SCREENS.map((path) => ({ method: "GET" as const, path }));
    const perCompany = [{ method: "GET" as const, path: "/filings/latest?ticker=X0&limit=20" }];
    // The first call of each screen loads its documents and ranks it: timed apart, then both warmed.
    const first: number[] = [];
    for (const path of SCREENS) {
      const t = performance.now();
      const res = await fetch(`${gateway.url}${path}`, { headers });
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
      first.push(performance.now() - t);
    }
    await slice(screens, 1);
    await slice(perCompany, 1);
    type Slice = { rps: number; p99_ms: number };
    const runs: { screen: Slice; company: Slice }[] = [];
    for (let cycle = 0; cycle < cycles; cycle++) {
      // The two take turns, in alternating order, so that the machine's drift favours neither.
      const order = cycle % 2 ? (["company", "screen"] as const) : (["screen", "company"] as const);
      const run = {} as { screen: Slice; company: Slice };
      for (const name of order) run[name] = await slice(name === "screen" ? screens : perCompany, seconds);
      runs.push(run);
    }
    const rows = (await (await fetch(`${gateway.url}${SCREENS[0]}&limit=1`, { headers })).json()) as { meta: { total: number } };
    return {
      companies,
      covered: summary.covered,
      build_seconds: round2(buildSeconds),
      revenue_cy2024q4_companies: rows.meta.total,
      first_call_ms: first.map(Math.round),
      connections,
      load_average: loadAverage(),
      screen_rps: Math.round(median(runs.map((r) => r.screen.rps))),
      screen_p99_ms: median(runs.map((r) => r.screen.p99_ms)),
      screen_p99_ms_worst: Math.max(...runs.map((r) => r.screen.p99_ms)),
      per_company_rps: Math.round(median(runs.map((r) => r.company.rps))),
      screen_vs_per_company: round2(median(runs.map((r) => r.screen.rps / r.company.rps))),
      goal: "screen_p99_ms <= 20, screen_vs_per_company >= 0.5",
    };
  } finally {
    gateway?.child.kill("SIGKILL");
    await source.close();
    rmSync(out, { recursive: true, force: true });
  }
}
