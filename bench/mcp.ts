// Benchmark: /mcp. (1) A keyed MCP tool call, on 2026-07-28 (goal ≥ 0.5) and on 2025-06-18 (no slower than before
// issue 41: 0.35–0.49), against the keyed HTTP route giving the same answer, in alternating slices, with h3's POST
// ceiling beside them. (2) The keyed HTTP route's p99 and the server's peak RSS while 200 connections flood /mcp with
// tools/list (goals ≤ 50 ms, ≤ 400 MB): once with the per-address limit as deployed (one flooding address) and once
// with it off (a flood from many addresses: every tools/list answered in full). Servers run in a child process, which
// first builds its test snapshot (about 300 MB of its RSS before any traffic).
import autocannon from "autocannon";
import { loadAverage, median, round2, stealMeter } from "./_stats.ts";
import { flag, MCP_2026_HEADERS, MCP_CALL, MCP_CALL_2026, startServers, type ServerProcess } from "./_server-process.ts";

const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" };
const LIST = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });

/** `--cycles N` (10), `--seconds N` per slice (1.5), `--connections N` (50), `--flood-seconds N` (10), `--flood N` connections (200). */
export async function run(args: string[]): Promise<Record<string, unknown>> {
  const cycles = Number(flag(args, "--cycles") ?? 10);
  const seconds = Number(flag(args, "--seconds") ?? 1.5);
  const connections = Number(flag(args, "--connections") ?? 50);
  const floodSeconds = Number(flag(args, "--flood-seconds") ?? 10);
  const floodConnections = Number(flag(args, "--flood") ?? 200);

  const stolen = stealMeter();
  const loadBefore = loadAverage();
  const limited = await startServers({ FREE_RATE_PER_MINUTE: "120", FREE_BURST: "30" }); // the deployed defaults
  let throughput: Record<string, unknown>;
  let flood: Flood;
  try {
    // The flood first, on a fresh server: its peak RSS is the flood's, not what the keyed phase left in the heap.
    await warm(limited);
    flood = await floodWhileMeasuring(limited, floodSeconds, floodConnections);
    throughput = await keyedThroughput(limited, { cycles, seconds, connections });
  } finally {
    limited.stop();
  }
  const open = await startServers({ FREE_RATE_PER_MINUTE: "0" });
  let unlimited: Flood;
  try {
    await warm(open);
    unlimited = await floodWhileMeasuring(open, floodSeconds, floodConnections);
  } finally {
    open.stop();
  }
  return {
    keyed_mcp_2026_vs_http: throughput.ratio_2026,
    keyed_mcp_vs_http: throughput.ratio,
    flood_paid_p99_ms: flood.paid_p99_ms,
    flood_peak_rss_mb: flood.peak_rss_mb,
    conditions: {
      connections,
      cycles,
      seconds,
      flood_connections: floodConnections,
      flood_seconds: floodSeconds,
      flooding_addresses: 1,
      cpu_stolen_pct: stolen(),
      load_average: [loadBefore, loadAverage()],
    },
    keyed: throughput,
    flood_rate_limited: flood,
    flood_unlimited: unlimited,
  };
}

interface Slice {
  rps: number;
  p99_ms: number;
  /** The server's CPU time per request in the slice, in µs: what the call costs the server, whatever the client. */
  cpu_us: number;
}

interface Flood {
  paid_p99_ms: number;
  paid_p50_ms: number;
  paid_rps: number;
  paid_errors: number;
  flood_rps: number;
  flood_non2xx: number;
  peak_rss_mb: number;
  rss_before_mb: number;
}

type Target = "http" | "mcp" | "mcp_2026" | "post_ceiling";
const TARGETS: Target[] = ["http", "mcp", "mcp_2026", "post_ceiling"];

/**
 * Keyed HTTP, keyed MCP and h3's POST ceiling (the body read, the gateway's own MCP reply returned: what any POST
 * endpoint costs here before doing anything) take turns in short slices; ratios are medians of in-cycle ratios.
 */
async function keyedThroughput(servers: ServerProcess, options: { cycles: number; seconds: number; connections: number }) {
  const runs: Record<Target, Slice>[] = [];
  for (let cycle = 0; cycle < options.cycles; cycle++) {
    const order = cycle % 2 ? [...TARGETS].reverse() : TARGETS;
    const slices = {} as Record<Target, Slice>;
    for (const name of order) slices[name] = await slice(servers, name, options.connections, options.seconds);
    runs.push(slices);
  }
  const ratios = runs.map((r) => r.mcp.rps / r.http.rps);
  const summary = (name: Target) => ({
    rps: Math.round(median(runs.map((r) => r[name].rps))),
    p99_ms: median(runs.map((r) => r[name].p99_ms)),
    server_cpu_us: Math.round(median(runs.map((r) => r[name].cpu_us))),
  });
  return {
    ratio_2026: round2(median(runs.map((r) => r.mcp_2026.rps / r.http.rps))),
    ratio: round2(median(ratios)),
    server_cpu_http_vs_mcp: round2(median(runs.map((r) => r.http.cpu_us / r.mcp.cpu_us))),
    mcp_vs_post_ceiling: round2(median(runs.map((r) => r.mcp.rps / r.post_ceiling.rps))),
    post_ceiling_vs_http: round2(median(runs.map((r) => r.post_ceiling.rps / r.http.rps))),
    http: summary("http"),
    mcp: summary("mcp"),
    mcp_2026: summary("mcp_2026"),
    post_ceiling: summary("post_ceiling"),
    ratio_cycles: ratios.map(round2),
  };
}

/** 200 connections of tools/list (in a worker thread of their own) while 10 connections time the keyed HTTP route. */
async function floodWhileMeasuring(servers: ServerProcess, seconds: number, connections: number): Promise<Flood> {
  const rssBefore = servers.rssMb();
  let peak = rssBefore;
  const sampler = setInterval(() => (peak = Math.max(peak, servers.rssMb())), 100);
  const floodRun = autocannon({
    url: mcpUrl(servers),
    method: "POST",
    connections,
    duration: seconds,
    headers: MCP_HEADERS,
    body: LIST,
    workers: 1,
  });
  await new Promise((resolve) => setTimeout(resolve, 1_000)); // the flood first takes hold
  const paid = await autocannon({ url: servers.targets.paid, connections: 10, duration: seconds - 2, headers: keyHeader(servers) });
  const flooded = await floodRun;
  clearInterval(sampler);
  return {
    paid_p99_ms: paid.latency.p99,
    paid_p50_ms: paid.latency.p50,
    paid_rps: Math.round(paid.requests.average),
    paid_errors: paid.errors + paid.timeouts + paid.non2xx,
    flood_rps: Math.round(flooded.requests.average),
    flood_non2xx: flooded.non2xx,
    peak_rss_mb: Math.round(peak),
    rss_before_mb: Math.round(rssBefore),
  };
}

async function slice(servers: ServerProcess, name: Target, connections: number, duration: number): Promise<Slice> {
  const url = name === "http" ? servers.targets.paid : name === "post_ceiling" ? servers.targets.h3Mcp : mcpUrl(servers);
  const options =
    name === "http"
      ? { url, headers: keyHeader(servers) }
      : name === "mcp_2026"
        ? { url, method: "POST" as const, headers: { ...MCP_HEADERS, ...MCP_2026_HEADERS, ...keyHeader(servers) }, body: MCP_CALL_2026 }
        : { url, method: "POST" as const, headers: { ...MCP_HEADERS, ...keyHeader(servers) }, body: MCP_CALL };
  const cpuBefore = servers.cpuMs();
  const result = await autocannon({ ...options, connections, duration });
  if (result.errors || result.non2xx) throw new Error(`${name}: ${result.errors} errors, ${result.non2xx} non-2xx`);
  const cpu_us = ((servers.cpuMs() - cpuBefore) * 1000) / Math.max(1, result.requests.total);
  return { rps: result.requests.average, p99_ms: result.latency.p99, cpu_us };
}

/** JIT and connections warmed, and the key verified once (later calls find it in memory). */
async function warm(servers: ServerProcess): Promise<void> {
  for (const name of TARGETS) await slice(servers, name, 10, 1);
}

function mcpUrl(servers: ServerProcess): string {
  return `${new URL(servers.targets.paid).origin}/mcp`;
}

function keyHeader(servers: ServerProcess): Record<string, string> {
  return { authorization: `Bearer ${servers.targets.key}` };
}
