// The MCP clients agents really use, as one small interface for the tests: the official v2 client on 2026-07-28, the
// v1 SDK client (1.32.2) on 2025-11-25, and mcp-remote, the stdio bridge (a v1 client on its stdio side). Each lists
// the tools when it connects, as agents do, so the SDK validates every later result against its tool's output schema.
import { createRequire } from "node:module";
import { join } from "node:path";
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from "@modelcontextprotocol/client";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as HttpV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";

/** Arguments each tool answers with data on the test snapshot (JNJ is the overlay's issuer with real Form 4s). */
export const GOOD_ARGS: Record<string, Record<string, unknown>> = {
  probe_coverage: { ticker: "AAPL" },
  get_latest_filings: { ticker: "AAPL", limit: 3 },
  get_earnings_summary: { ticker: "AAPL", period: "FY2023" },
  get_insider_transactions: { ticker: "JNJ" },
  get_financials: { ticker: "AAPL", statement: "cash_flow", period: "ttm" },
  get_segments: { ticker: "AAPL", axis: "geography", period: "FY2023" },
  list_tickers: {},
  screen_companies: { metric: "revenue", period: "CY2024Q3", limit: 5 },
  get_market_filings: { form: "4" },
  get_market_insider_activity: { code: "S" },
};

/** mcp-remote's command, as a client's configuration runs it (`npx mcp-remote <url>`), from the pinned package. */
const PROXY = join(createRequire(import.meta.url).resolve("mcp-remote/package.json"), "..", "dist", "proxy.js");

/** A connected agent: the tools it listed, and tools/call. */
export interface Agent {
  tools: Tool[];
  /** The protocol revision the client speaks with the server. */
  protocol: string | undefined;
  /** The server's instructions as the client received them (initialize, or server/discover). */
  instructions: string | undefined;
  call(name: string, args: Record<string, unknown>, meta?: Record<string, unknown>): Promise<CallToolResult>;
  /** The client itself, for x402-buyer's callPaying. */
  client: { callTool(params: { name: string; arguments: Record<string, unknown>; _meta?: Record<string, unknown> }): Promise<unknown> };
  close(): Promise<void>;
}

/** The official v2 client, pinned to 2026-07-28 (server/discover, then the per-request envelope on every request). */
export async function agentV2(base: string, headers: Record<string, string> = {}): Promise<Agent> {
  const client = new ClientV2({ name: "agent-v2", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  await client.connect(new HttpV2(new URL(`${base}/mcp`), { requestInit: { headers } }));
  return listed(client, client.getNegotiatedProtocolVersion());
}

/** The v1 SDK client (initialize on 2025-11-25, its latest revision). */
export async function agentV1(base: string, headers: Record<string, string> = {}): Promise<Agent> {
  const client = new ClientV1({ name: "agent-v1", version: "1.0.0" });
  const transport = new HttpV1(new URL(`${base}/mcp`), { requestInit: { headers } });
  await client.connect(transport);
  return listed(client, transport.protocolVersion);
}

/** A client on stdio through mcp-remote (`--header-file` for a key), with a home of its own for mcp-remote's state. */
export async function agentBridged(base: string, home: string, args: string[] = []): Promise<Agent> {
  const client = new ClientV1({ name: "stdio-agent", version: "1.0.0" });
  const env = { ...(process.env as Record<string, string>), HOME: home };
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [PROXY, `${base}/mcp`, "--allow-http", ...args], env, stderr: "ignore" }));
  return listed(client, "stdio");
}

async function listed(client: ClientV1 | ClientV2, protocol: string | undefined): Promise<Agent> {
  const { tools } = await client.listTools();
  return {
    tools: tools as Tool[],
    protocol,
    instructions: client.getInstructions(),
    call: async (name, args, meta) => (await client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) })) as CallToolResult,
    client: client as Agent["client"],
    close: () => client.close(),
  };
}

/** What a 2026-07-28 request's `_meta` carries, with x402's MCP extension advertised (or not) in the client's capabilities. */
function envelope2026(extension: boolean): Record<string, unknown> {
  return {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": extension ? { extensions: { "org.x402/payment": {} } } : {},
    "io.modelcontextprotocol/clientInfo": { name: "x402-extension-agent", version: "1.0.0" },
  };
}

/** A JSON-RPC result as it came, unvalidated: the extension's `payment_required` is no result type the SDK clients read. */
export type RawResult = Record<string, unknown> & { resultType?: string; _meta?: Record<string, unknown> };

/**
 * A 2026-07-28 client written from x402's MCP extension binding (specs/transports-v2/mcp.md, `org.x402/payment`) and
 * MCP's per-request rules: the envelope in every request's `_meta`, with the extension in the client's capabilities
 * (unless `extension` is false), and the MCP-Protocol-Version, Mcp-Method and Mcp-Name headers. No SDK client speaks
 * the extension yet (the v2 client rejects any result type but `complete` and `input_required`).
 */
export function extensionAgent(base: string, headers: Record<string, string> = {}, extension = true) {
  let id = 0;
  const request = async (method: string, params: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<RawResult> => {
    const body = { jsonrpc: "2.0", id: ++id, method, params: { ...params, _meta: { ...envelope2026(extension), ...extra } } };
    const name: Record<string, string> = typeof params.name === "string" ? { "mcp-name": params.name } : {};
    const response = await fetch(`${base}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28", "mcp-method": method, ...name, ...headers },
      body: JSON.stringify(body),
    });
    const reply = (await response.json()) as { id: number; result?: RawResult; error?: unknown };
    if (response.status !== 200 || reply.id !== body.id || !reply.result) throw new Error(`${method}: ${response.status} ${JSON.stringify(reply)}`);
    return reply.result;
  };
  return {
    discover: () => request("server/discover", {}),
    /** tools/call; `meta` adds to the envelope (a payment under `x402/payment`). */
    call: (name: string, args: Record<string, unknown>, meta: Record<string, unknown> = {}) => request("tools/call", { name, arguments: args }, meta),
  };
}
