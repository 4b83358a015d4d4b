// POST /mcp: MCP over streamable HTTP (web-standard transport, stateless, JSON responses), one tool per route of
// the table with the same zod input schemas and the same `data` as the HTTP endpoints. Same rules as HTTP:
// an uncovered ticker is an error before payment; errors and empty answers are never charged.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { H3Event } from "h3";
import { PAID_ROUTES, ROUTES, type PaidRoute } from "../schemas/api.ts";
import { envelope, type Meta } from "../schemas/envelope.ts";
import type { ErrorBody } from "../schemas/errors.ts";
import { paidAnswer } from "./answer.ts";
import { isoNow } from "./clock.ts";
import { requireCoverage } from "./coverage.ts";
import { ApiError, asApiError } from "./errors.ts";
import { ToolRefusal, type ToolPayments } from "./mcp-payment.ts";
import { serviceProbe, tickerProbe } from "./probe.ts";
import type { SnapshotStore } from "./snapshot.ts";
import { coveredTickers } from "./tickers.ts";

/** What the MCP endpoint needs from the gateway. */
export interface McpDeps {
  snapshots: SnapshotStore;
  tools: ToolPayments;
}

const PROBE = ROUTES.find((r) => r.path === "/probe")!;
const TICKERS = ROUTES.find((r) => r.path === "/tickers")!;

/** Answers one MCP request with a fresh server and transport (the SDK refuses to reuse a stateless transport). */
export async function handleMcp(event: H3Event, deps: McpDeps): Promise<Response> {
  if (event.req.method !== "POST") {
    throw new ApiError("method_not_allowed", `${event.req.method.slice(0, 16)} is not allowed on /mcp; MCP here is stateless POST only.`, {
      headers: { allow: "POST" },
    });
  }
  const server = new McpServer({ name: "filing-data-service", version: "1.0.0" });
  registerTools(server, event.req.headers, deps);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    return await transport.handleRequest(event.req as Request);
  } finally {
    await server.close();
  }
}

function registerTools(server: McpServer, headers: Headers, deps: McpDeps): void {
  server.registerTool(
    PROBE.tool,
    { title: PROBE.summary, description: PROBE.description, inputSchema: PROBE.query.shape },
    async (args: { ticker?: string }) =>
      guarded(async () => {
        const snapshot = await deps.snapshots.current();
        const data = args.ticker ? tickerProbe(snapshot, args.ticker) : serviceProbe(snapshot);
        return success({ data, meta: { retrieved_at: isoNow(), cache: "hit", snapshot: snapshot.pointer.build_id } });
      }),
  );
  server.registerTool(
    TICKERS.tool,
    { title: TICKERS.summary, description: TICKERS.description, inputSchema: TICKERS.query.shape, outputSchema: envelope(TICKERS.payload).shape },
    async () =>
      guarded(async () => {
        const snapshot = await deps.snapshots.current();
        return success({ data: coveredTickers(snapshot), meta: { retrieved_at: isoNow(), cache: "hit", built_at: snapshot.pointer.built_at, snapshot: snapshot.pointer.build_id } });
      }),
  );
  for (const route of PAID_ROUTES) {
    server.registerTool(
      route.tool,
      {
        title: route.summary,
        description: `${route.description} Price: ${route.price} per call via x402, or free with a subscription API key.`,
        inputSchema: route.query.shape,
        outputSchema: envelope(route.payload).shape,
      },
      async (args: Record<string, unknown>, extra: { _meta?: Record<string, unknown> }) =>
        guarded(() => paidTool(route, args as { ticker: string }, extra._meta, headers, deps)),
    );
  }
}

async function paidTool(
  route: PaidRoute,
  query: { ticker: string },
  meta: Record<string, unknown> | undefined,
  headers: Headers,
  deps: McpDeps,
): Promise<CallToolResult> {
  const snapshot = await deps.snapshots.current();
  requireCoverage(deps.snapshots.ticker(snapshot, query.ticker), query.ticker);
  const ticket = await deps.tools.require(route, headers, meta);
  const { doc, cache } = await deps.snapshots.document(snapshot, query.ticker, route.document);
  const answer = paidAnswer(doc, cache, snapshot, route, query, isoNow());
  const body = JSON.parse(answer.body.toString("utf8")) as { data: unknown[]; meta: Meta };
  // Settle only for an answer with data (DESIGN "Gateway"); the receipt rides in _meta (x402 MCP transport).
  const receipt = answer.rows > 0 ? await deps.tools.settle(route, ticket) : null;
  const result = success(body);
  if (receipt) result._meta = { "x402/payment-response": receipt };
  return result;
}

/** Turns refusals and API errors into tool errors (isError), never transport failures. */
async function guarded(run: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ToolRefusal) return error.result;
    const api = asApiError(error);
    const body: ErrorBody = { error: { code: api.code, message: api.message, hint: api.hint } };
    return { isError: true, structuredContent: body, content: [{ type: "text", text: JSON.stringify(body) }] };
  }
}

function success(envelopeValue: { data: unknown; meta: Meta }): CallToolResult {
  return { structuredContent: envelopeValue, content: [{ type: "text", text: JSON.stringify(envelopeValue) }] };
}
