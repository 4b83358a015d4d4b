// Starting the gateway on a port: load the snapshot, start watching current.json, listen, stop cleanly on signals.
import type { Socket } from "node:net";
import { serve } from "h3";
import { createLogger } from "../logging/log.ts";
import type { GatewayConfig } from "./config.ts";
import { errorBody } from "./errors.ts";
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
  const server = serve(gateway.app, {
    port: config.port,
    hostname: config.host,
    silent: true,
    node: {
      maxHeaderSize: MAX_HEADER_BYTES,
      headersTimeout: config.timeouts.headersMs,
      requestTimeout: config.timeouts.requestMs,
      // Node checks those deadlines on this period (30 s by default, too coarse for a 10 s deadline).
      connectionsCheckingInterval: Math.min(1000, config.timeouts.headersMs),
    },
  });
  await server.ready();
  server.node?.server?.on("clientError", answerClientError);
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
 * Node answers malformed, oversized or too-slow requests itself, before any handler, with an empty body: give
 * those answers the error body too (431 headers_too_large, 408 request_timeout, 400 invalid_parameter).
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (!socket.writable) return void socket.destroy();
  const [status, code, text, message] =
    error.code === "HPE_HEADER_OVERFLOW"
      ? ([431, "headers_too_large", "Request Header Fields Too Large", "The request headers are too large."] as const)
      : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? ([408, "request_timeout", "Request Timeout", "The request was not received in time."] as const)
        : ([400, "invalid_parameter", "Bad Request", "The request is not valid HTTP."] as const);
  const body = JSON.stringify(errorBody(code, message));
  socket.end(`HTTP/1.1 ${status} ${text}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}
