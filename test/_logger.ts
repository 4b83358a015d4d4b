// A logger that keeps its lines in memory, for tests that assert what was logged.
import type { Level, Logger } from "../logging/log.ts";

/** A logger that keeps its lines in memory, for tests. */
export function memoryLogger(): Logger & { lines: { level: Level; event: string; fields: Record<string, unknown> }[] } {
  const lines: { level: Level; event: string; fields: Record<string, unknown> }[] = [];
  return { lines, log: (level, event, fields = {}) => void lines.push({ level, event, fields }) };
}
