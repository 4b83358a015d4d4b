// Structured logs for the builder, the follower and the gateway (issue 42): pino, one JSON line per event on stderr,
// written asynchronously (a request never waits on a write), at LOG_LEVEL and above. Never logs secrets: callers pass
// ids and prefixes, never a key, a payment signature or a credential.
import pino, { type DestinationStream } from "pino";

/** The levels a program logs at; `error` is the service's own failure, never a client's bad input or abort. */
export type Level = "debug" | "info" | "warn" | "error";

const LEVELS = new Set<string>(["debug", "info", "warn", "error"]);

/** A logger that writes `{"level":…, "time":…, …fields, "event":…}` lines. */
export interface Logger {
  log(level: Level, event: string, fields?: Record<string, unknown>): void;
}

/** Where lines go: a file descriptor (stderr by default), written asynchronously in batches; or a function (tests). */
export type LogDestination = number | ((line: string) => void);

/** One asynchronous writer per file descriptor, shared by every logger of the process: lines never interleave. */
const WRITERS = new Map<number, DestinationStream>();

/** A logger writing at or above `level` (a program's configured LOG_LEVEL; anything else is `info`). */
export function createLogger(level: string, destination: LogDestination = 2): Logger {
  const stream = typeof destination === "number" ? writerOf(destination) : { write: destination };
  const logger = pino(
    {
      level: LEVELS.has(level) ? level : "info",
      messageKey: "event",
      timestamp: isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    stream,
  );
  return { log: (lvl, event, fields) => (fields ? logger[lvl](fields, event) : logger[lvl](event)) };
}

/** Where a component writes its events: a structured logger (`Logger.log`), or a test's memory. */
export type EventLog = (level: "info" | "warn" | "error", event: string, fields?: Record<string, unknown>) => void;

/** pino's asynchronous writer (sonic-boom) on `fd`: lines gather while a write is under way; pino flushes it at exit. */
function writerOf(fd: number): DestinationStream {
  let writer = WRITERS.get(fd);
  if (!writer) WRITERS.set(fd, (writer = pino.destination({ dest: fd, sync: false })));
  return writer;
}

let lastMs = Number.NaN;
let lastTime = "";

/** The line's time as ISO 8601 text; lines of one millisecond share it (Date's formatting is most of a line's cost). */
function isoTime(): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    lastTime = `,"time":"${new Date(now).toISOString()}"`;
  }
  return lastTime;
}
