// Starts bench/_gateway-server.ts in its own process (so load generation and the server do not share a thread)
// and reads the targets it prints; the caller stops it with `stop()`.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { buildTestData } from "../test/_gateway.ts";
import { processCpuMs, processRssMb } from "./_stats.ts";

const CALL_PARAMS = { name: "get_latest_filings", arguments: { ticker: "AAPL", limit: 20 } };
/** The MCP benchmark's call: the gateway benchmark's question (AAPL's 20 latest filings) as a 2025 tools/call. */
export const MCP_CALL = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: CALL_PARAMS });
/** The same call on 2026-07-28: the per-request envelope in `_meta`, and the headers that must name it. */
export const MCP_CALL_2026 = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: { ...CALL_PARAMS, _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} } },
});
export const MCP_2026_HEADERS = { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": CALL_PARAMS.name };

/** What the server process serves. */
export interface Targets {
  paid: string;
  probe: string;
  h3: string;
  /** h3's ceiling for the MCP call: body read, the gateway's own reply returned. */
  h3Mcp: string;
  node: string;
  key: string;
  bytes: number;
}

/** A running server process. */
export interface ServerProcess {
  targets: Targets;
  pid: number;
  /** Resident set size of the server process, in MB (from /proc). */
  rssMb(): number;
  /** CPU time the server process has used so far (user + system), in ms (from /proc). */
  cpuMs(): number;
  stop(): void;
}

/**
 * Spawns the bench servers over a test snapshot built here (the servers' process holds only what a gateway holds, as in
 * production, never a build's memory), with `env` added to the gateway's environment; waits for their first line.
 */
export async function startServers(env: Record<string, string> = {}): Promise<ServerProcess> {
  const { dataDir } = await buildTestData();
  const child = spawn(process.execPath, ["bench/_gateway-server.ts"], { stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, ...env, BENCH_DATA_DIR: dataDir } });
  const first = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once("line", resolve);
    child.once("exit", (code) => reject(new Error(`server exited with ${code}`)));
  });
  return {
    targets: JSON.parse(first) as Targets,
    pid: child.pid!,
    rssMb: () => processRssMb(child.pid!),
    cpuMs: () => processCpuMs(child.pid!),
    stop: () => void child.kill("SIGTERM"), // the servers exit at once on it (a --cpu-prof profile is written then)
  };
}

/** The value after `--name` in a benchmark's arguments. */
export function flag(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}
