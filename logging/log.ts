// Structured logs for builder and gateway: one JSON line per event on stderr, levels from LOG_LEVEL. Never logs secrets.

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40 } as const;
export type Level = keyof typeof LEVELS;

/** A logger that writes `{"t":…, "level":…, "event":…, …fields}` lines. */
export interface Logger {
  log(level: Level, event: string, fields?: Record<string, unknown>): void;
}

/** A logger writing to stderr at or above `level` (a program's configured LOG_LEVEL). */
export function createLogger(level: string, write: (line: string) => void = (line) => void process.stderr.write(line)): Logger {
  const min = LEVELS[level as Level] ?? LEVELS.info;
  return {
    log(lvl, event, fields = {}) {
      if (LEVELS[lvl] < min) return;
      write(`${JSON.stringify({ t: new Date().toISOString(), level: lvl, event, ...fields })}\n`);
    },
  };
}

/** Where a component writes its events: a structured logger (`Logger.log`), or a test's memory. */
export type EventLog = (level: "info" | "warn" | "error", event: string, fields?: Record<string, unknown>) => void;
