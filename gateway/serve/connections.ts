// What one connection, and all of them together, may make the gateway hold (issue 39): answers are computed only as
// fast as each client reads them, requests read ahead of their answers are bounded, a socket that stops reading is
// closed, and an address whose connections keep being closed has its next ones refused for a while. Node computes
// every pipelined request of a chunk at once and buffers each answer until it is read.
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { EventLog } from "../../logging/log.ts";
import { TokenBuckets } from "../http/rate-limit.ts";

/** The limits of one gateway's connections (GatewayConfig.connections). */
export interface ConnectionLimits {
  /** Answers one connection may have under way (computed or being written) at once. */
  inFlight: number;
  /** Requests one connection may send ahead of those under way; one more closes it. */
  ahead: number;
  /** A connection whose written answer made no progress this long is closed (ms). */
  writeStallMs: number;
  /** Answer bytes waiting in the gateway's memory for all connections together; past it, stalled ones are closed. */
  bufferedBytes: number;
  /**
   * Connections of one address that may be closed by these rules (a burst, then so many a minute) before its new
   * connections are closed as they open, unread; null behind a proxy, whose address every client shares.
   */
  closedPerAddress: { burst: number; perMinute: number } | null;
}

/** A socket's writes past this many unsent bytes hold its next answer until the client reads. */
const SOCKET_HIGH_WATER = 64 * 1024;
/** How often stalled sockets and the total held are checked (ms). */
const TICK_MS = 250;
/** Closed connections are logged as counts, at most this often (ms): an attack is one line, not one per socket. */
const REPORT_MS = 10_000;

type Listener = (req: IncomingMessage, res: ServerResponse) => void;
type Reason = "ahead" | "stalled" | "over_budget" | "refused";

/** One connection's answers under way, the requests waiting behind them, and its write progress. */
interface Connection {
  socket: Socket;
  inFlight: number;
  waiting: Array<[IncomingMessage, ServerResponse]>;
  /** Bytes the socket has handed to the network so far, and when that last grew with bytes still waiting. */
  sent: number;
  progressAt: number;
}

/**
 * Puts `server`'s request listeners behind a gate that enforces `limits` per connection and in total, and returns a
 * function that stops its timer. Every request still reaches the listeners, in order, unless its connection is closed.
 */
export function guardConnections(server: Server, limits: ConnectionLimits, log: EventLog): () => void {
  const listeners = server.listeners("request") as Listener[];
  server.removeAllListeners("request");
  const open = new Map<Socket, Connection>();
  const closed: Record<Reason, number> = { ahead: 0, stalled: 0, over_budget: 0, refused: 0 };
  let reportedAt = performance.now();
  let overBudget = false;
  // A client closed for not reading reconnects at once: refused as it connects, it costs an accept, not a parse,
  // the requests it pipelines and the memory they churn.
  const strikes = limits.closedPerAddress && new TokenBuckets(limits.closedPerAddress);
  if (strikes) {
    const connectionListeners = server.listeners("connection") as Array<(socket: Socket) => void>;
    server.removeAllListeners("connection");
    server.on("connection", (socket: Socket) => {
      if (socket.remoteAddress !== undefined && !strikes.has(socket.remoteAddress)) {
        closed.refused++;
        return void socket.destroy();
      }
      for (const listener of connectionListeners) listener.call(server, socket);
    });
  }

  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    if (socket.destroyed) return;
    let conn = open.get(socket);
    if (!conn) {
      conn = { socket, inFlight: 0, waiting: [], sent: flushed(socket), progressAt: performance.now() };
      open.set(socket, conn);
      const known = conn;
      socket.once("close", () => open.delete(socket));
      socket.on("drain", () => pump(known));
    }
    // The usual request, on a connection with nothing under way, is answered at once. One sent while another is
    // under way (pipelined) waits until an answer has been written: a chunk of pipelined requests is parsed whole
    // before any answer is, so a client far ahead is closed before its requests cost anything.
    if (conn.inFlight === 0 && conn.waiting.length === 0) return dispatch(conn, req, res);
    if (conn.waiting.length >= limits.ahead) return close(conn, "ahead");
    conn.waiting.push([req, res]);
  });

  function dispatch(conn: Connection, req: IncomingMessage, res: ServerResponse): void {
    conn.inFlight++;
    // A response emits "close" once, after its last byte is handed to the socket or when the socket closes first.
    res.on("close", () => {
      conn.inFlight--;
      pump(conn);
    });
    for (const listener of listeners) listener.call(server, req, res);
  }

  /** Hands waiting requests to the listeners while the connection has room and its client is reading. */
  function pump(conn: Connection): void {
    while (conn.waiting.length > 0 && !conn.socket.destroyed && hasRoom(conn)) {
      const [req, res] = conn.waiting.shift()!;
      dispatch(conn, req, res);
    }
  }

  /** Room for one more answer: the client reads what it was sent, and pipelines within the limits. */
  function hasRoom(conn: Connection): boolean {
    if (conn.socket.writableLength >= SOCKET_HIGH_WATER) return false;
    return conn.inFlight === 0 || (conn.inFlight < limits.inFlight && !overBudget);
  }

  function close(conn: Connection, reason: Exclude<Reason, "refused">): void {
    closed[reason]++;
    if (strikes && conn.socket.remoteAddress !== undefined) strikes.take(conn.socket.remoteAddress);
    conn.waiting.length = 0;
    ignoreRest(conn.socket);
    stacklessAborts(conn.socket);
    conn.socket.destroy();
    open.delete(conn.socket);
  }

  // Write progress, stalls and the total held, on a timer: per request it would cost a walk over every socket.
  const timer = setInterval(() => {
    const now = performance.now();
    let total = 0;
    const held: Connection[] = [];
    for (const conn of open.values()) {
      const pending = conn.socket.writableLength;
      const sent = flushed(conn.socket);
      if (pending === 0 || sent > conn.sent) conn.progressAt = now;
      conn.sent = sent;
      if (pending === 0) continue;
      if (now - conn.progressAt >= limits.writeStallMs) close(conn, "stalled");
      else {
        total += pending;
        held.push(conn);
      }
    }
    if (total > limits.bufferedBytes) {
      // The connections holding most, among those that made no progress this tick, go first.
      held.sort((a, b) => b.socket.writableLength - a.socket.writableLength);
      for (const conn of held) {
        if (total <= limits.bufferedBytes) break;
        if (conn.progressAt === now) continue;
        total -= conn.socket.writableLength;
        close(conn, "over_budget");
      }
    }
    overBudget = total > limits.bufferedBytes;
    if (now - reportedAt >= REPORT_MS && closed.ahead + closed.stalled + closed.over_budget + closed.refused > 0) {
      log("warn", "connections_closed", { ...closed, window_s: Math.round((now - reportedAt) / 1000) });
      closed.ahead = closed.stalled = closed.over_budget = closed.refused = 0;
      reportedAt = now;
    }
  }, TICK_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Node parses the whole chunk it read (64 KB: hundreds of pipelined requests) before any is answered, making each a
 * request object, and aborts each one it did not answer when the socket closes: a client closed for being far ahead
 * would cost thousands of both. Its parser (Node's own `socket.parser`, whose `onIncoming` takes each parsed request)
 * stops at the next one: 2 is llhttp's "upgrade", which ends the parse of the chunk there (Node reads it as a plain
 * request, the socket being closed, and reads no more).
 */
function ignoreRest(socket: Socket): void {
  const parser = (socket as Socket & { parser?: { onIncoming?: unknown } | null }).parser;
  if (parser && typeof parser.onIncoming === "function") parser.onIncoming = () => 2;
}

/**
 * When a socket closes, Node aborts each request it parsed and each answer it queued but did not finish, with an
 * error whose stack it captures and formats: for the up to `ahead` requests of a connection closed for being far
 * ahead, that was a quarter of the gateway's time under attack (issue 39). A socket closed on purpose has no stack
 * worth reading: its close captures none (Node's listener runs between these two, synchronously).
 */
function stacklessAborts(socket: Socket): void {
  let limit: number; // the process's own, read as the close begins
  socket.prependOnceListener("close", () => {
    limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
  });
  socket.once("close", () => {
    Error.stackTraceLimit = limit;
  });
}

/** Bytes the socket has handed to the network: those accepted for writing, less those still waiting. */
function flushed(socket: Socket): number {
  return socket.bytesWritten - socket.writableLength;
}
