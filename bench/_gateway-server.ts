// The servers the gateway benchmark loads, in their own process: the real gateway over a test snapshot, on the listener
// it runs on in production (serveHttp: its connection rules, a log line and metrics per request), logging to /dev/null;
// an h3 route returning the same precomputed response (h3's ceiling) and bare node:http serving it too; and, for the
// MCP benchmark, an h3 POST route that reads the body and returns the gateway's own reply to the same tool call.
import { openSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { H3, serve } from "h3";
import { FastResponse } from "srvx";
import { loadConfig } from "../gateway/config.ts";
import { serveHttp } from "../gateway/serve/listen.ts";
import { createLogger } from "../logging/log.ts";
import { testGateway } from "../test/_gateway.ts";
import { MCP_CALL } from "./_server-process.ts";

const PAID_PATH = "/filings/latest?ticker=AAPL&limit=20";
// The snapshot startServers built (_server-process.ts): this process holds only what a gateway holds.
const dataDir = process.env.BENCH_DATA_DIR;
if (!dataDir) throw new Error("BENCH_DATA_DIR is not set: the servers are started by startServers (bench/_server-process.ts)");
// The free endpoints' per-address limit is off unless the benchmark sets it (one load generator is one address).
const env = { FREE_RATE_PER_MINUTE: process.env.FREE_RATE_PER_MINUTE ?? "0", FREE_BURST: process.env.FREE_BURST ?? "30" };
// Logged as in production (a line per request, written asynchronously), but to /dev/null: the output stays the benchmark's.
const logger = createLogger("info", openSync("/dev/null", "w"));
const gateway = testGateway(dataDir, { env, log: logger.log });
const { key } = await gateway.keys.create("bench");
const sample = await gateway.get(PAID_PATH, { headers: { authorization: `Bearer ${key}` } });
const bytes = Buffer.from(await sample.arrayBuffer());
// The baselines send the paid answer's own headers too (type, CORS, caching): the same response to the same request.
const headers = Object.fromEntries([...sample.headers].filter(([name]) => name !== "content-length"));
const mcpSample = await gateway.get("/mcp", {
  method: "POST",
  headers: { authorization: `Bearer ${key}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
  body: MCP_CALL,
});
const mcpBytes = Buffer.from(await mcpSample.arrayBuffer());
const mcpHeaders = Object.fromEntries([...mcpSample.headers].filter(([name]) => name !== "content-length"));

const { timeouts, connections } = loadConfig(env);
const gatewayServer = await serveHttp(gateway.app, { port: 0, host: "127.0.0.1", timeouts, connections }, logger.log, gateway);
// The ceiling answers the paid route's own path, so every target gets the very same request (path, query, key).
// It answers the way the gateway does (srvx's FastResponse, h3's fastest), so only the gateway's own work differs.
const ceilingApp = new H3()
  .get(PAID_PATH.split("?")[0]!, () => new FastResponse(bytes, { status: 200, headers }))
  .post("/mcp", async (event) => (await event.req.text(), new FastResponse(mcpBytes, { status: 200, headers: mcpHeaders })));
const ceiling = serve(ceilingApp, { port: 0, hostname: "127.0.0.1", silent: true });
const bare = createServer((_req, res) => res.writeHead(200, headers).end(bytes));
await Promise.all([ceiling.ready(), new Promise<void>((r) => bare.listen(0, "127.0.0.1", r))]);

console.log(
  JSON.stringify({
    paid: `${gatewayServer.url!.replace(/\/$/, "")}${PAID_PATH}`,
    probe: `${gatewayServer.url!.replace(/\/$/, "")}/probe?ticker=AAPL`,
    h3: `${ceiling.url!.replace(/\/$/, "")}${PAID_PATH}`,
    h3Mcp: `${ceiling.url!.replace(/\/$/, "")}/mcp`,
    node: `http://127.0.0.1:${(bare.address() as AddressInfo).port}${PAID_PATH}`,
    key,
    bytes: bytes.length,
  }),
);
process.once("SIGTERM", () => process.exit(0)); // exits as a process should (a --cpu-prof profile is written then)
