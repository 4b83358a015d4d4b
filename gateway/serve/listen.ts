// Starting the gateway on a port: load the snapshot, start watching current.json, listen, stop cleanly on signals;
// its metrics on a listener of their own (METRICS_PORT, loopback). The HTTP rules of the port itself live here too:
// limits and deadlines, reason phrases, what Node answers alone, and each request's log line and metrics (issue 42).
import { ServerResponse, STATUS_CODES, type Server as HttpServer, type IncomingMessage, type OutgoingHttpHeader, type OutgoingHttpHeaders } from "node:http";
import type { Socket } from "node:net";
import { serve, type H3 } from "h3";
import { createLogger, type EventLog } from "../../logging/log.ts";
import { serveMetrics } from "../../logging/metrics.ts";
import type { GatewayConfig } from "../config.ts";
import { errorBody, printable } from "../http/errors.ts";
import { guardConnections } from "./connections.ts";
import { Exchange } from "./exchange.ts";
import { createGateway, type Gateway } from "./server.ts";

/** Request headers beyond this are refused with 431 (Node's own default, stated). */
const MAX_HEADER_BYTES = 16 * 1024;

/** Serves the gateway until SIGINT/SIGTERM; resolves with the URL it listens on (and its metrics', when served). */
export async function listen(config: GatewayConfig, pollMs = config.snapshotPollMs): Promise<{ url: string; metricsUrl: string | null; close(): Promise<void> }> {
  const { log } = createLogger(config.logLevel);
  const gateway = createGateway(config, { log });
  await gateway.snapshots.refresh().catch((error: Error) => log("warn", "no_snapshot_yet", { error: error.message }));
  gateway.snapshots.watch(pollMs);
  const metrics = config.metrics ? await serveMetrics(gateway.metrics.registry, config.metrics, log) : null;
  const server = await serveHttp(gateway.app, config, log, gateway);
  const url = server.url ?? `http://${config.host}:${config.port}`;
  log("info", "listening", { url, public_base_url: config.publicBaseUrl, snapshot: gateway.snapshots.held?.pointer.build_id ?? null });
  const close = async () => {
    gateway.close();
    await Promise.all([server.close(true), metrics?.close()]);
  };
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void close().then(() => process.exit(0)));
  return { url, metricsUrl: metrics?.url ?? null, close };
}

/**
 * Serves an app on `config.port` with the port's HTTP rules: header size and deadlines, what connections may make it
 * hold (connections.ts), a reason phrase on every status line, and the error body on what Node answers before any
 * handler (malformed or slow requests, CONNECT). Each request the app answers is one log line, and counted in the
 * gateway's metrics when given.
 */
export async function serveHttp(
  app: H3,
  config: Pick<GatewayConfig, "port" | "host" | "timeouts" | "connections">,
  log: EventLog,
  gateway: Pick<Gateway, "metrics" | "snapshots"> | null = null,
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
      ServerResponse: observedResponses(log, gateway),
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
 * The port's answers, observed (issue 42): each holds its request's record (exchange.ts), which the app fills in, and
 * counts the body bytes written; once the answer is handed to the socket, the request is one log line (`warn` for a
 * 5xx, the service's failure; `info` otherwise) and counted in the metrics.
 */
function observedResponses(log: EventLog, gateway: Pick<Gateway, "metrics" | "snapshots"> | null): typeof ServerResponse {
  return class ObservedResponse<Request extends IncomingMessage = IncomingMessage> extends ReasonPhraseResponse<Request> {
    readonly exchange = new Exchange();
    #bytes = 0;
    #done = false;

    override write(chunk: Body, encoding?: BufferEncoding | Callback, callback?: Callback): boolean {
      this.#bytes += byteLength(chunk);
      return super.write(chunk, encoding as BufferEncoding, callback);
    }

    override end(chunk?: Body | Callback, encoding?: BufferEncoding | Callback, callback?: Callback): this {
      if (typeof chunk !== "function") this.#bytes += byteLength(chunk);
      super.end(chunk, encoding as BufferEncoding, callback);
      if (!this.#done) this.#observe();
      return this;
    }

    #observe(): void {
      this.#done = true;
      const { exchange } = this;
      const method = this.req.method ?? "";
      const status = this.statusCode;
      const ms = performance.now() - exchange.start;
      gateway?.metrics.request(exchange.route, method, status, ms / 1000, this.#bytes, exchange.calls);
      // The path only where no route matched (its text is the client's: printable, bounded).
      const path = exchange.route === null ? printable((this.req.url ?? "").split("?")[0]!) : undefined;
      const answer = { method, path, status, ms, bytes: this.#bytes };
      log(status >= 500 ? "warn" : "info", "request", exchange.line(answer, gateway?.snapshots.held?.pointer.build_id ?? null));
    }
  };
}

/** What srvx writes as a body: text or bytes. */
type Body = string | Uint8Array | null | undefined;
type Callback = (error?: Error | null) => void;

function byteLength(chunk: Body): number {
  return chunk == null ? 0 : typeof chunk === "string" ? Buffer.byteLength(chunk) : chunk.byteLength;
}

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
