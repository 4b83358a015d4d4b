// Structured logs for the builder, the follower and the gateway (issue 42): pino, one JSON line per event on stderr,
// written asynchronously (a request never waits on a write), at LOG_LEVEL and above. Never logs secrets: callers pass
// ids and prefixes, never a key, a payment signature or a credential.
import pino, { type DestinationStream } from "pino";

/** The levels a program logs at; `error` is the service's own failure, never a client's bad input or abort. */
export type Level = "debug" | "info" | "warn" | "error";

const LEVELS = new Set<string>(["debug", "info", "warn", "error"]);

/** A logger that writes `{"level":…, "time":…, "pid":…, "hostname":…, "event":…, …fields}` lines. */
export interface Logger {
  log(level: Level, event: string, fields?: Record<string, unknown>): void;
}

/** Where lines go: a file descriptor (stderr by default), written asynchronously in batches; or a function (tests). */
export type LogDestination = number | ((line: string) => void);

/** Lines wait at most this long to be written together (a line per request costs a write per batch, not per line). */
const BATCH_MS = 50;
/** Lines pending past this many characters are written at once. */
const BATCH_CHARS = 64 * 1024;

/** One asynchronous writer per file descriptor, shared by every logger of the process: lines never interleave. */
const WRITERS = new Map<number, DestinationStream>();

/** A logger writing at or above `level` (a program's configured LOG_LEVEL; anything else is `info`). */
export function createLogger(level: string, destination: LogDestination = 2): Logger {
  const stream = typeof destination === "number" ? writerOf(destination) : { write: destination };
  const logger = pino({ level: LEVELS.has(level) ? level : "info", timestamp: isoTime, formatters: { level: (label) => ({ level: label }) } }, stream);
  // One child per event (the code's own names, so few): its name is written once, ahead of the fields, and a line's
  // fields are never copied to put it there.
  const children = new Map<string, pino.Logger>();
  return {
    log: (lvl, event, fields = {}) => {
      let child = children.get(event);
      if (!child) children.set(event, (child = logger.child({ event })));
      child[lvl](fields);
    },
  };
}

/** Where a component writes its events: a structured logger (`Logger.log`), or a test's memory. */
export type EventLog = (level: "info" | "warn" | "error", event: string, fields?: Record<string, unknown>) => void;

/** The batched writer of `fd` (see Batches), made once. */
function writerOf(fd: number): DestinationStream {
  let writer = WRITERS.get(fd);
  if (!writer) WRITERS.set(fd, (writer = new Batches(fd)));
  return writer;
}

/**
 * pino's asynchronous writer (sonic-boom) on a file descriptor, handed lines in batches: every BATCH_MS, or once
 * BATCH_CHARS are pending, and at exit. sonic-boom measures the byte length of all it holds on each write it is given
 * (sonic-boom 4.2.1 index.js write()), so lines handed over one by one while a write is under way cost more the more
 * wait: a line a request made the gateway's keyed call 24 % dearer in CPU (issue 42's measure); gathered here, a line
 * costs a string concatenation.
 */
class Batches implements DestinationStream {
  readonly #writer: ReturnType<typeof pino.destination>;
  #pending = "";
  #timer: NodeJS.Timeout | null = null;

  constructor(fd: number) {
    // Registered before pino's own exit handler (which flushes its writer): what is pending is handed over first.
    process.once("exit", () => this.#flush(true));
    this.#writer = pino.destination({ dest: fd, sync: false });
  }

  write(line: string): void {
    this.#pending += line;
    if (this.#pending.length >= BATCH_CHARS) this.#flush(false);
    else this.#timer ??= setTimeout(() => this.#flush(false), BATCH_MS);
  }

  #flush(exiting: boolean): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    if (this.#pending !== "") this.#writer.write(this.#pending);
    this.#pending = "";
    try {
      if (exiting) this.#writer.flushSync();
    } catch {
      // The descriptor is gone (a closed pipe): nothing more can be written.
    }
  }
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
