// `npm start`: the embedded default — storage in data/, dev-mode payments, and a first build of a small default
// universe when the store holds no snapshot yet. Composes builder and gateway, which never import each other.
import { runBuild } from "../build/run.ts";
import { openSource } from "../build/sources/open.ts";
import { loadConfig } from "../gateway/config.ts";
import { listen } from "../gateway/listen.ts";
import { createLogger } from "../logging/log.ts";
import { CURRENT_KEY } from "../storage/layout.ts";
import { openStorage } from "../storage/open.ts";

/** A few dozen large companies: enough to try every endpoint, small enough to build from live EDGAR in minutes. */
export const DEFAULT_UNIVERSE = [
  "AAPL", "MSFT", "NVDA", "GOOGL", "GOOG", "AMZN", "META", "BRK-B", "TSLA", "JPM", "V", "MA", "JNJ", "WMT", "PG", "XOM",
  "UNH", "HD", "KO", "PEP", "COST", "MRK", "ABBV", "AVGO", "ORCL", "CRM", "ADBE", "NFLX", "DIS", "MCD", "TXN", "INTC",
  "CSCO", "UA", "UAA", "MRVL", "TSM",
];

const env = process.env;
try {
  const config = loadConfig(env);
  const storage = openStorage(config.dataUrl, config.storageEnv);
  if (!(await storage.hasItem(CURRENT_KEY))) {
    const spec = env.EDGAR_SOURCE ?? "live";
    if (spec === "live" && !env.EDGAR_USER_AGENT) {
      console.error(
        `${config.dataUrl} holds no snapshot yet, so npm start builds one from live EDGAR first.\n` +
          "SEC requires a declared User-Agent for that. Set it and run again, e.g.:\n" +
          '  EDGAR_USER_AGENT="Your Company Name you@example.com" npm start\n' +
          "or build offline from the shared mirror:  EDGAR_SOURCE=dir:../shared/edgar npm start",
      );
      process.exit(1);
    }
    const log = createLogger(config.logLevel);
    log.log("info", "first_build", { source: spec, tickers: DEFAULT_UNIVERSE.length, data: config.dataUrl });
    const summary = await runBuild({ source: openSource(spec, env), storage, log, tickers: DEFAULT_UNIVERSE });
    log.log("info", "first_build_done", { ...summary });
  }
  await listen(config);
} catch (error) {
  console.error(`npm start failed: ${(error as Error).message}`);
  process.exit(1);
}
