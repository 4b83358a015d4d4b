// Benchmark: mixed traffic for 5 minutes (paid with a key, probe, health, unpaid 402, unknown ticker 404),
// sampling the server's RSS and p99 latency per interval; goals: RSS growth under 10%, no rising latency.
import autocannon from "autocannon";
import { flag, startServers } from "./_server-process.ts";

/** `--seconds N` total (default 300), `--interval N` per sample (default 30), `--connections N` (default 20). */
export async function run(args: string[]): Promise<Record<string, unknown>> {
  const total = Number(flag(args, "--seconds") ?? 300);
  const interval = Number(flag(args, "--interval") ?? 30);
  const connections = Number(flag(args, "--connections") ?? 20);
  const servers = await startServers();
  try {
    const { targets } = servers;
    const base = new URL(targets.paid).origin;
    const auth = { authorization: `Bearer ${targets.key}` };
    const requests = [
      { method: "GET" as const, path: "/filings/latest?ticker=AAPL&limit=20", headers: auth },
      { method: "GET" as const, path: "/earnings/summary?ticker=WMT&period=annual", headers: auth },
      { method: "GET" as const, path: "/insiders?ticker=JNJ", headers: auth },
      { method: "GET" as const, path: "/probe?ticker=HD" },
      { method: "GET" as const, path: "/health" },
      { method: "GET" as const, path: "/earnings/summary?ticker=DIS" }, // unpaid: 402
      { method: "GET" as const, path: "/filings/latest?ticker=ZZZZZ" }, // 404
    ];
    await autocannon({ url: base, connections, duration: 2, requests }); // warm-up
    const samples: { rss_mb: number; p99_ms: number; rps: number; errors: number }[] = [];
    for (let elapsed = 0; elapsed < total; elapsed += interval) {
      const result = await autocannon({ url: base, connections, duration: Math.min(interval, total - elapsed), requests });
      samples.push({ rss_mb: Math.round(servers.rssMb()), p99_ms: result.latency.p99, rps: Math.round(result.requests.average), errors: result.errors + result.timeouts });
    }
    const first = samples[0]!;
    const last = samples.at(-1)!;
    return {
      seconds: total,
      connections,
      samples: samples.length,
      rss_start_mb: first.rss_mb,
      rss_end_mb: last.rss_mb,
      rss_growth: Math.round(((last.rss_mb - first.rss_mb) / first.rss_mb) * 1000) / 1000,
      p99_first_ms: first.p99_ms,
      p99_last_ms: last.p99_ms,
      errors: samples.reduce((n, s) => n + s.errors, 0),
      per_interval: samples,
    };
  } finally {
    servers.stop();
  }
}
