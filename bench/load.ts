// Benchmark: 500 concurrent connections on the paid route (with a key) and /probe; the goal is no errors at all.
import autocannon from "autocannon";
import { flag, startServers } from "./_server-process.ts";

/** `--seconds N` (default 10), `--connections N` (default 500). */
export async function run(args: string[]): Promise<Record<string, unknown>> {
  const seconds = Number(flag(args, "--seconds") ?? 10);
  const connections = Number(flag(args, "--connections") ?? 500);
  const servers = await startServers();
  try {
    const { targets } = servers;
    const result = await autocannon({
      url: targets.paid.replace(/\/filings.*$/, ""),
      connections,
      duration: seconds,
      requests: [
        { method: "GET", path: new URL(targets.paid).pathname + new URL(targets.paid).search, headers: { authorization: `Bearer ${targets.key}` } },
        { method: "GET", path: new URL(targets.probe).pathname + new URL(targets.probe).search },
      ],
    });
    return {
      connections,
      seconds,
      requests: result.requests.total,
      rps: Math.round(result.requests.average),
      errors: result.errors,
      timeouts: result.timeouts,
      non2xx: result.non2xx,
      p99_ms: result.latency.p99,
      server_rss_mb: Math.round(servers.rssMb()),
    };
  } finally {
    servers.stop();
  }
}
