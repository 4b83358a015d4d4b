// Small statistics shared by the benchmarks, and how busy the machine was while they ran.
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";

/** The median of a non-empty list. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Rounded to two decimals (ratios). */
export function round2(n: number): number {
  return Math.round(n * 100) / 100;
}

/** Share of CPU time the hypervisor gave to others since the call (Linux's /proc/stat steal), in percent. */
export function stealMeter(): () => number | null {
  const read = () => {
    try {
      const fields = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
      return { steal: fields[7] ?? 0, total: fields.reduce((a, b) => a + b, 0) };
    } catch {
      return null;
    }
  };
  const start = read();
  return () => {
    const end = read();
    return start && end && end.total > start.total ? round2((100 * (end.steal - start.steal)) / (end.total - start.total)) : null;
  };
}

/** The 1-minute load average (other processes on a shared machine skew every figure). */
export function loadAverage(): number {
  return round2(loadavg()[0]!);
}

/** Resident set size of process `pid`, in MB (from /proc). */
export function processRssMb(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;
}

/** CPU time process `pid` has used so far (user + system), in ms (from /proc). */
export function processCpuMs(pid: number): number {
  // Fields 14 and 15 of /proc/PID/stat (after the parenthesised name): utime and stime, in clock ticks (100 a second).
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
