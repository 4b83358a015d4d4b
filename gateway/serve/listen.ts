// Starting the gateway on a port: load the snapshot, start watching current.json, listen, stop cleanly on signals.
// The HTTP rules of the port itself live here too: limits and deadlines, reason phrases, what Node answers alone.
import { ServerResponse, STATUS_CODES, type Server as HttpServer, type IncomingMessage, type OutgoingHttpHeader, type OutgoingHttpHeaders } from "node:http";
import type { Socket } from "node:net";
import { serve, type H3 } from "h3";
import { createLogger, type EventLog } from "../../logging/log.ts";
import type { GatewayConfig } from "../config.ts";
import { errorBody } from "../http/errors.ts";
import { guardConnections } from "./connections.ts";
import { createGateway } from "./server.ts";

/** Request headers beyond this are refused with 431 (Node's own default, stated). */
const MAX_HEADER_BYTES = 16 * 1024;

/** Serves the gateway until SIGINT/SIGTERM; resolves with the URL it listens on. */
export async function listen(config: GatewayConfig, pollMs = config.snapshotPollMs): Promise<{ url: string; close(): Promise<void> }> {
  const logger = createLogger(config.logLevel);
  const log = logger.log.bind(logger);
  const gateway = createGateway(config, { log });
  await gateway.snapshots.refresh().catch((error: Error) => log("warn", "no_snapshot_yet", { error: error.message }));
  gateway.snapshots.watch(pollMs);
  const server = await serveHttp(gateway.app, config, log);
  const url = server.url ?? `http://${config.host}:${config.port}`;
  log("info", "listening", { url, public_base_url: config.publicBaseUrl, snapshot: gateway.snapshots.held?.pointer.build_id ?? null });
  const close = async () => {
    gateway.close();
    await server.close(true);
  };
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void close().then(() => process.exit(0)));
  return { url, close };
}

/**
 * Serves an app on `config.port` with the port's HTTP rules: header size and deadlines, what connections may make it
 * hold (connections.ts), a reason phrase on every status line, and the error body on what Node answers before any
 * handler (malformed or slow requests, CONNECT).
 */
export async function serveHttp(
  app: H3,
  config: Pick<GatewayConfig, "port" | "host" | "timeouts" | "connections">,
  log: EventLog,
): Promise<ReturnType<typeof serve>> {
  const server = serve(app, {
    port: config.port,
    hostname: config.host,
    silent: true,
    node: {
      maxHeaderSize: MAX_HEADER_BYTES,
      headersTimeout: config.timeouts.headersMs,
      requestTimeout: config.timeouts.requestMs,
      // Node checks those deadlines on this period (30 s by default, too coarse for a 10 s deadline).
      connectionsCheckingInterval: Math.min(1000, config.timeouts.headersMs),
      ServerResponse: ReasonPhraseResponse,
    },
  });
  const node = server.node!.server as HttpServer;
  // Before the first connection: serve() listens on a later turn of the event loop.
  const unguard = guardConnections(node, config.connections, log);
  node.maxConnections = config.connections.max;
  node.once("close", unguard);
  await server.ready();
  server.node?.server?.on("clientError", answerClientError);
  // Without a listener Node drops a CONNECT's socket unanswered; this is no proxy.
  server.node?.server?.on("connect", (_request: IncomingMessage, socket: Socket) => {
    answerRaw(socket, 405, "method_not_allowed", "CONNECT is not allowed: this is an API, not a proxy.", "Allow: GET, HEAD, POST, OPTIONS\r\n");
  });
  return server;
}

/**
 * srvx writes a web Response's statusText, which is "" unless set, and Node then sends "HTTP/1.1 402 " with no
 * reason phrase: here an empty one becomes the standard phrase ("Payment Required").
 */
class ReasonPhraseResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  override writeHead(status: number, reason?: string | Headers, headers?: Headers): this {
    if (typeof reason === "string" && reason !== "") return super.writeHead(status, reason, headers);
    return super.writeHead(status, STATUS_CODES[status] ?? "Unknown", typeof reason === "string" ? headers : reason);
  }
}

type Headers = OutgoingHttpHeaders | OutgoingHttpHeader[];

/**
 * Node answers malformed, oversized or too-slow requests itself, before any handler, with an empty body: give
 * those answers the error body too (431 headers_too_large, 408 request_timeout, 400 invalid_parameter).
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (!socket.writable) return void socket.destroy();
  const [status, code, message] =
    error.code === "HPE_HEADER_OVERFLOW"
      ? ([431, "headers_too_large", "The request headers are too large."] as const)
      : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? ([408, "request_timeout", "The request was not received in time."] as const)
        : ([400, "invalid_parameter", "The request is not valid HTTP."] as const);
  answerRaw(socket, status, code, message);
}

/** Writes a whole answer with the error body on a socket no handler will see, and closes it. */
function answerRaw(socket: Socket, status: number, code: Parameters<typeof errorBody>[0], message: string, extraHeaders = ""): void {
  if (!socket.writable) return void socket.destroy();
  const body = JSON.stringify(errorBody(code, message));
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `${extraHeaders}Connection: close\r\n\r\n${body}`,
  );
}
