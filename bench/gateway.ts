// Benchmark: the gateway's paid route (with an API key) and /probe against h3 serving the same precomputed
// bytes (h3's own ceiling) and bare node:http, in one run, servers in a child process, 50 connections.
import autocannon from "autocannon";
import { flag, startServers } from "./_server-process.ts";

/** Loads each target in turn; `--seconds N` (default 8) and `--connections N` (default 50). */
export async function run(args: string[]): Promise<Record<string, unknown>> {
  const seconds = Number(flag(args, "--seconds") ?? 8);
  const connections = Number(flag(args, "--connections") ?? 50);
  const servers = await startServers();
  try {
    const { targets } = servers;
    const load = async (url: string, headers: Record<string, string> = {}) => {
      await autocannon({ url, connections, duration: 1, headers }); // warm-up
      const result = await autocannon({ url, connections, duration: seconds, headers });
      if (result.errors || result.non2xx) throw new Error(`${url}: ${result.errors} errors, ${result.non2xx} non-2xx`);
      return { rps: Math.round(result.requests.average), p99_ms: result.latency.p99 };
    };
    const paid = await load(targets.paid, { authorization: `Bearer ${targets.key}` });
    const probe = await load(targets.probe);
    const h3 = await load(targets.h3);
    const node = await load(targets.node);
    return {
      connections,
      seconds,
      body_bytes: targets.bytes,
      paid_key: paid,
      probe,
      h3_ceiling: h3,
      bare_node: node,
      paid_vs_h3: round(paid.rps / h3.rps),
      paid_vs_node: round(paid.rps / node.rps),
    };
  } finally {
    servers.stop();
  }
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}
