// `npm start`: the embedded default — storage in data/, dev-mode payments, and a first build of a small default
// universe when the store holds no snapshot yet (from live EDGAR, or offline from a folder in EDGAR's layout).
// Composes builder and gateway, which never import each other.
import { pathToFileURL } from "node:url";
import { runBuild } from "../build/pipeline/run.ts";
import { loadBuildConfig } from "../build/config.ts";
import { openSource } from "../build/sources/open.ts";
import { loadConfig } from "../gateway/config.ts";
import { listen } from "../gateway/serve/listen.ts";
import { createLogger } from "../logging/log.ts";
import { CURRENT_KEY } from "../storage/layout.ts";
import { openStorage } from "../storage/open.ts";

/** A few dozen large companies: enough to try every endpoint, small enough to build from live EDGAR in minutes. */
export const DEFAULT_UNIVERSE = [
  "AAPL", "MSFT", "NVDA", "GOOGL", "GOOG", "AMZN", "META", "BRK-B", "TSLA", "JPM", "V", "MA", "JNJ", "WMT", "PG", "XOM",
  "UNH", "HD", "KO", "PEP", "COST", "MRK", "ABBV", "AVGO", "ORCL", "CRM", "ADBE", "NFLX", "DIS", "MCD", "TXN", "INTC",
  "CSCO", "UA", "UAA", "MRVL", "TSM",
];

/**
 * The offline seed (EDGAR_SOURCE=dir:…): the tickers the repository's fixtures (test/fixtures/edgar) really cover —
 * the companies with both company facts and submissions there, as in ../shared/edgar. bin/start.test.ts checks it.
 */
export const FIXTURE_UNIVERSE = ["AAPL", "DIS", "HD", "MCD", "MRVL", "TXN", "UA", "UAA", "WMT"];

/** Builds the first snapshot when the store has none, then serves; returns an exit code on failure. */
export async function main(env: NodeJS.ProcessEnv): Promise<number> {
  try {
    const config = loadConfig(env);
    const build = loadBuildConfig(env);
    const storage = openStorage(config.dataUrl, config.storageEnv);
    if (!(await storage.hasItem(CURRENT_KEY))) {
      const spec = build.source;
      if (spec === "live" && !build.userAgent) {
        console.error(
          `${config.dataUrl} holds no snapshot yet, so npm start builds one from live EDGAR first.\n` +
            "SEC requires a declared User-Agent for that. Set it and run again, e.g.:\n" +
            '  EDGAR_USER_AGENT="Your Company Name you@example.com" npm start\n' +
            "or start offline from the repository's EDGAR fixtures:  EDGAR_SOURCE=dir:test/fixtures/edgar npm start",
        );
        return 1;
      }
      const log = createLogger(config.logLevel);
      const tickers = spec.startsWith("dir:") ? FIXTURE_UNIVERSE : DEFAULT_UNIVERSE;
      log.log("info", "first_build", { source: spec, tickers: tickers.length, data: config.dataUrl });
      const summary = await runBuild({ source: openSource(spec, build.userAgent), storage, log, tickers });
      log.log("info", "first_build_done", { ...summary });
    }
    await listen(config);
    return 0;
  } catch (error) {
    console.error(`npm start failed: ${(error as Error).message}`);
    return 1;
  }
}

const USAGE = `usage: npm start
Serves http://127.0.0.1:3000 from data/ ($DATA_URL) with dev-mode payments (test USDC, no real money). When the store
holds no snapshot yet it first builds one: from live EDGAR (set EDGAR_USER_AGENT="Your Company you@example.com"), or
offline with EDGAR_SOURCE=dir:test/fixtures/edgar. Settings are environment variables: docs/configuration.md.`;

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [arg] = process.argv.slice(2);
  if (arg !== undefined) {
    const help = arg === "--help" || arg === "-h";
    (help ? console.log : console.error)(help ? USAGE : `npm start takes no arguments, got "${arg}"\n${USAGE}`);
    process.exit(help ? 0 : 2);
  }
  const code = await main(process.env);
  if (code) process.exit(code);
}
