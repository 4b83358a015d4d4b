// Benchmark: the gateway's paid route (with an API key) and /probe against h3 serving the same precomputed
// bytes (h3's own ceiling) and bare node:http, servers in a child process, 50 connections. This machine's
// speed drifts (CPU stolen by neighbours comes and goes within seconds), so the targets take turns in short
// slices, cycle after cycle, and each ratio is the median of the ratios measured within one cycle.
import autocannon from "autocannon";
import { loadAverage, median, round2, stealMeter } from "./_stats.ts";
import { flag, startServers, type Targets } from "./_server-process.ts";

interface Slice {
  rps: number;
  p99_ms: number;
}

const NAMES = ["paid", "h3", "node", "probe"] as const;
type Name = (typeof NAMES)[number];

/** `--cycles N` (default 20), `--seconds N` per slice (default 1.5), `--connections N` (default 50). */
export async function run(args: string[]): Promise<Record<string, unknown>> {
  const cycles = Number(flag(args, "--cycles") ?? 20);
  const seconds = Number(flag(args, "--seconds") ?? 1.5);
  const connections = Number(flag(args, "--connections") ?? 50);
  const servers = await startServers();
  try {
    const load = async (name: Name, duration: number): Promise<Slice> => {
      const { url, headers } = target(servers.targets, name);
      const result = await autocannon({ url, connections, duration, headers });
      if (result.errors || result.non2xx) throw new Error(`${url}: ${result.errors} errors, ${result.non2xx} non-2xx`);
      return { rps: result.requests.average, p99_ms: result.latency.p99 };
    };
    for (const name of NAMES) await load(name, 1); // warm-up: JIT and connections
    const stolen = stealMeter();
    const runs: Record<Name, Slice>[] = [];
    for (let cycle = 0; cycle < cycles; cycle++) {
      // Alternate the order so that a drift within a cycle favours no target.
      const order = cycle % 2 ? [...NAMES].reverse() : NAMES;
      const slices = {} as Record<Name, Slice>;
      for (const name of order) slices[name] = await load(name, seconds);
      runs.push(slices);
    }
    const summary = (name: Name) => ({
      rps: Math.round(median(runs.map((r) => r[name].rps))),
      p99_ms: median(runs.map((r) => r[name].p99_ms)),
      p99_ms_worst: Math.max(...runs.map((r) => r[name].p99_ms)),
    });
    const ratios = (over: Name) => runs.map((r) => r.paid.rps / r[over].rps);
    return {
      connections,
      cycles,
      seconds,
      body_bytes: servers.targets.bytes,
      cpu_stolen_pct: stolen(),
      load_average: loadAverage(),
      paid_key: summary("paid"),
      probe: summary("probe"),
      h3_ceiling: summary("h3"),
      bare_node: summary("node"),
      paid_vs_h3: round2(median(ratios("h3"))),
      paid_vs_node: round2(median(ratios("node"))),
      paid_vs_h3_cycles: ratios("h3").map(round2),
    };
  } finally {
    servers.stop();
  }
}

/** The paid route and both baselines get the very same request: path, query and key; /probe is free. */
function target(targets: Targets, name: Name): { url: string; headers: Record<string, string> } {
  return { url: targets[name], headers: name === "probe" ? {} : { authorization: `Bearer ${targets.key}` } };
}
