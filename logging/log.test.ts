// The shared logger (pino behind createLogger): one JSON line per event with its level, time, event and fields; lines
// below the configured level dropped; a file descriptor written asynchronously, whole lines in order, all of them
// written when the program exits.
import { execFile } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createLogger } from "./log.ts";

const dir = mkdtempSync(join(tmpdir(), "log-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("createLogger", () => {
  it("writes one JSON line per event: level by name, ISO time, the event and its fields", () => {
    const lines: string[] = [];
    const logger = createLogger("info", (line) => void lines.push(line));
    logger.log("info", "snapshot_loaded", { build_id: "b1", tickers: 3 });
    logger.log("error", "unhandled");
    expect(lines).toHaveLength(2);
    expect(lines.every((line) => line.endsWith("}\n") && !line.slice(0, -1).includes("\n"))).toBe(true);
    const first = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(first).toMatchObject({ level: "info", event: "snapshot_loaded", build_id: "b1", tickers: 3 });
    expect(new Date(first.time as string).toISOString()).toBe(first.time);
    expect(JSON.parse(lines[1]!)).toMatchObject({ level: "error", event: "unhandled" });
  });

  it("drops lines below the configured level; an unknown level is info", () => {
    for (const [level, kept] of [["warn", ["warn", "error"]], ["debug", ["debug", "info", "warn", "error"]], ["loud", ["info", "warn", "error"]]] as const) {
      const lines: string[] = [];
      const logger = createLogger(level, (line) => void lines.push(line));
      for (const at of ["debug", "info", "warn", "error"] as const) logger.log(at, `at_${at}`);
      expect(lines.map((line) => (JSON.parse(line) as { level: string }).level)).toEqual(kept);
    }
  });

  it("writes a file descriptor asynchronously: every line, whole and in order", async () => {
    const path = join(dir, "async.log");
    const fd = openSync(path, "w");
    const logger = createLogger("info", fd);
    for (let i = 0; i < 2000; i++) logger.log("info", "request", { i, route: "/filings/latest" });
    await waitFor(() => readFileSync(path, "utf8").split("\n").length > 2000);
    const lines = readFileSync(path, "utf8").trimEnd().split("\n");
    expect(lines.map((line) => (JSON.parse(line) as { i: number }).i)).toEqual(Array.from({ length: 2000 }, (_, i) => i));
    closeSync(fd);
  });
});

describe("a program's log at exit", () => {
  it("holds every line logged before process.exit, however many were still waiting to be written", async () => {
    const script = `import { createLogger } from ${JSON.stringify(new URL("./log.ts", import.meta.url).pathname)};
      const logger = createLogger("info");
      for (let i = 0; i < 5000; i++) logger.log("info", "request", { i });
      logger.log("error", "failed", { last: true });
      process.exit(3);`;
    const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = execFile(process.execPath, ["--input-type=module", "-e", script], (error, _stdout, stderr) => resolve({ code: error ? (error.code as number) : 0, stderr }));
      void child;
    });
    expect(code).toBe(3);
    const lines = stderr.trimEnd().split("\n").map((line) => JSON.parse(line) as { event: string; i?: number });
    expect(lines).toHaveLength(5001);
    expect(lines.slice(0, 5000).map((line) => line.i)).toEqual(Array.from({ length: 5000 }, (_, i) => i));
    expect(lines.at(-1)).toMatchObject({ event: "failed", last: true });
  });
});

async function waitFor(done: () => boolean, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > until) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
