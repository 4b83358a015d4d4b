// The follower for tests: in the test's own process over a replaying EDGAR, or as operators run it — `node
// build/commands/cli.ts follow …` in a process of its own — for tests that kill it, start it again, or run two at once:
// its structured log lines as they come, and its exit.
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import type { Storage } from "unstorage";
import { follow, type FollowOptions, type FollowSummary } from "../build/follow/follower.ts";
import { createHttpSource } from "../build/sources/http.ts";
import { TokenBucket } from "../build/sources/rate-limit.ts";
import type { Source } from "../build/sources/source.ts";
import { createLogger } from "../logging/log.ts";
import type { EdgarReplay } from "./_edgar-replay.ts";

/** The replay as a source that does not wait on SEC's pace (the loopback EDGAR has no limit to keep). */
export function replaySource(replay: EdgarReplay): Source {
  return createHttpSource({ base: replay.url, bucket: new TokenBucket(1000), backoffMs: 5, userAgent: "Test Co test@example.com" });
}

/** Runs the follower in this process, polling every 100 ms, until the returned stop() is called; `lines` is its log. */
export function followInProcess(replay: EdgarReplay, storage: Storage, extra: Partial<FollowOptions> = {}): { lines: string[]; stop: () => Promise<FollowSummary> } {
  const stop = new AbortController();
  const lines: string[] = [];
  const log = createLogger("info", (line) => void lines.push(line));
  const running = follow({ source: replaySource(replay), storage, log, pollMs: 100, gapRetryMs: 300, signal: stop.signal, ...extra });
  live.add(stop);
  return {
    lines,
    stop: async () => {
      stop.abort();
      live.delete(stop);
      return running;
    },
  };
}

/** In-process followers not yet stopped. */
const live = new Set<AbortController>();

/** Stops the in-process followers a failed test left running, so that they do not slow the tests after it. */
export function stopInProcessFollowers(): void {
  for (const stop of live) stop.abort();
  live.clear();
}

/** One log line of the follower (logging/log.ts writes one JSON object a line). */
export interface LogLine {
  event: string;
  level: string;
  [field: string]: unknown;
}

export interface FollowerProcess {
  child: ChildProcess;
  lines: LogLine[];
  /** Text the process wrote that is not a log line (the CLI's messages). */
  text: string[];
  /** Resolves with the first line of `event` that `match` accepts (rejects after `timeoutMs` or if the process exits). */
  waitFor(event: string, match?: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `dataset follow` with `args` over `env` (added to this process's environment). */
export function spawnFollower(args: string[], env: Record<string, string> = {}): FollowerProcess {
  const child = spawn(process.execPath, ["build/commands/cli.ts", "follow", ...args], { env: { ...process.env, LOG_LEVEL: "info", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  const lines: LogLine[] = [];
  const text: string[] = [];
  const waiting = new Set<() => void>();
  const read = (line: string) => {
    try {
      const parsed = JSON.parse(line) as LogLine;
      if (typeof parsed.event === "string") lines.push(parsed);
      else text.push(line);
    } catch {
      text.push(line);
    }
    for (const check of waiting) check();
  };
  createInterface({ input: child.stderr! }).on("line", read);
  createInterface({ input: child.stdout! }).on("line", read);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  return {
    child,
    lines,
    text,
    exited,
    waitFor(event, match = () => true, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = lines.find((l) => l.event === event && match(l));
          if (!found) return;
          waiting.delete(check);
          clearTimeout(timer);
          resolve(found);
        };
        const timer = setTimeout(() => {
          waiting.delete(check);
          reject(new Error(`no "${event}" line within ${timeoutMs} ms; last lines: ${JSON.stringify(lines.slice(-5))} ${text.slice(-3).join(" | ")}`));
        }, timeoutMs);
        waiting.add(check);
        void exited.then(() => setTimeout(check, 50));
        check();
      });
    },
  };
}
