// Build progress for operators: a redrawn bar on a TTY (tickers done/total, requests/s, ETA), plain log lines otherwise.
import type { Logger } from "../../logging/log.ts";

/** A progress reporter fed by runBuild's onProgress. */
export function createProgress(log: Logger, stream: NodeJS.WriteStream = process.stderr) {
  const started = performance.now();
  let lastLine = 0;
  return {
    update({ done, total, requests }: { done: number; total: number; requests: number }) {
      const seconds = (performance.now() - started) / 1000;
      const rate = requests / Math.max(seconds, 0.001);
      const eta = done > 0 ? Math.round(((total - done) * seconds) / done) : null;
      if (stream.isTTY) {
        const width = 30;
        const filled = Math.round((done / Math.max(total, 1)) * width);
        stream.write(`\r[${"#".repeat(filled)}${".".repeat(width - filled)}] ${done}/${total} tickers  ${rate.toFixed(1)} req/s  ETA ${eta ?? "?"}s `);
        if (done === total) stream.write("\n");
      } else if (done === total || performance.now() - lastLine > 10_000) {
        lastLine = performance.now();
        log.log("info", "progress", { done, total, requests, requests_per_s: Number(rate.toFixed(1)), eta_s: eta });
      }
    },
  };
}
