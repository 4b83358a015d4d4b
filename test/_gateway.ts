// A gateway over a real snapshot for tests: the shared mirror (with the overlay) built once into a temp folder,
// then the real app wired with an injectable facilitator. No port: requests go through app.fetch.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FacilitatorClient } from "@x402/core/server";
import { serve } from "h3";
import { runBuild } from "../build/pipeline/run.ts";
import { createDirSource } from "../build/sources/dir.ts";
import { loadConfig } from "../gateway/config.ts";
import { createGateway, type Gateway } from "../gateway/serve/server.ts";
import type { EventLog } from "../logging/log.ts";
import { memoryLogger } from "./_logger.ts";
import { openStorage } from "../storage/open.ts";
import { addTickerRows, makeOverlayMirror, TSM_ROW } from "./_edgar-files.ts";

/** Tickers every gateway test can rely on (see build/pipeline/run.test.ts for what each exercises). */
export const GATEWAY_TICKERS = ["AAPL", "WMT", "HD", "DIS", "UA", "UAA", "JNJ", "MSFT", "TSM", "BRK-B"];

/**
 * A query for each route that the test build answers with rows — but the market feeds, whose default window reaches
 * back from today over a build dated 2026-07-01 (market.test.ts asks them for their days).
 */
export const ROUTE_QUERIES: Readonly<Record<string, string>> = {
  "/filings/latest": "ticker=AAPL&limit=2",
  "/earnings/summary": "ticker=AAPL&period=annual",
  "/insiders": "ticker=JNJ",
  "/financials": "ticker=AAPL&statement=balance&period=annual",
  "/segments": "ticker=AAPL&axis=business&period=FY2023",
  "/probe": "ticker=AAPL",
  "/screen": "metric=revenue&period=CY2024Q3&limit=2",
  "/market/insiders": "",
  "/market/filings": "",
};

/**
 * The test snapshot in a new folder, with its mirror; returns both (for removal). The build is the same in every file
 * (the same mirror, tickers and clock), so one run of the suite builds it once (test/_global-setup.ts names the folder
 * it is kept in; the first file to ask builds it, the others wait) and each file gets its own copy to change.
 */
export async function buildTestData(): Promise<{ dataDir: string; mirror: string }> {
  const cache = process.env.TEST_BUILD_CACHE;
  if (!cache) return freshTestData();
  const at = join(cache, "gateway");
  const done = join(at, "done");
  try {
    mkdirSync(at); // the one file that makes it
    try {
      const made = await freshTestData();
      cpSync(made.mirror, join(at, "mirror"), { recursive: true, verbatimSymlinks: true });
      cpSync(made.dataDir, join(at, "data"), { recursive: true });
      writeFileSync(done, "ok");
      return made;
    } catch (error) {
      writeFileSync(done, "failed");
      throw error;
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  for (let waited = 0; !existsSync(done); waited += 100) {
    if (waited > 180_000) throw new Error(`the shared test build in ${at} did not finish in 3 minutes`);
    await new Promise((r) => setTimeout(r, 100));
  }
  if (readFileSync(done, "utf8") !== "ok") return freshTestData(); // its maker failed: fail here with the reason
  const mirror = mkdtempSync(join(tmpdir(), "edgar-overlay-"));
  const dataDir = mkdtempSync(join(tmpdir(), "gateway-data-"));
  cpSync(join(at, "mirror"), mirror, { recursive: true, verbatimSymlinks: true });
  cpSync(join(at, "data"), dataDir, { recursive: true });
  return { dataDir, mirror };
}

async function freshTestData(): Promise<{ dataDir: string; mirror: string }> {
  const mirror = makeOverlayMirror();
  addTickerRows(mirror, [TSM_ROW]); // a company whose source fails: company facts, no submissions
  const dataDir = mkdtempSync(join(tmpdir(), "gateway-data-"));
  await runBuild({
    source: createDirSource(mirror),
    storage: openStorage(dataDir),
    log: memoryLogger(),
    tickers: GATEWAY_TICKERS,
    now: () => new Date("2026-07-01T12:00:00.000Z"),
    lookbackDays: 730,
  });
  return { dataDir, mirror };
}

/** The wired gateway over `dataDir`, with env overrides, an optional facilitator, and its log (kept in memory unless given). */
export function testGateway(dataDir: string, options: { env?: Record<string, string>; facilitator?: FacilitatorClient; log?: EventLog } = {}): Gateway & {
  get(path: string, init?: RequestInit): Promise<Response>;
  logs: ReturnType<typeof memoryLogger>["lines"];
} {
  // The free endpoints' per-client limit is off unless a test turns it on (requests through app.fetch share one address).
  const config = loadConfig({ DATA_URL: dataDir, PUBLIC_BASE_URL: "https://api.example.test", FACILITATOR_TIMEOUT_MS: "1500", FREE_RATE_PER_MINUTE: "0", ...options.env });
  const logger = memoryLogger();
  const gateway = createGateway(config, { log: options.log ?? logger.log.bind(logger), ...(options.facilitator ? { facilitator: options.facilitator } : {}) });
  return {
    ...gateway,
    logs: logger.lines,
    get: async (path, init) => gateway.app.fetch(new Request(`http://gateway.test${path}`, init)),
  };
}

/** A started test gateway: its snapshot's folders, its loopback URL when it listens, and `close` to stop and clean up. */
export interface StartedGateway {
  gw: ReturnType<typeof testGateway>;
  dataDir: string;
  mirror: string;
  /** `http://127.0.0.1:PORT` when started with `listen`; requests through `gw.get` need no port. */
  base: string;
  close(): Promise<void>;
}

/** Builds the test snapshot and wires a gateway over it, on a loopback port with `listen` (MCP clients, CLIs). */
export async function startTestGateway(options: Parameters<typeof testGateway>[1] & { listen?: boolean } = {}): Promise<StartedGateway> {
  const { dataDir, mirror } = await buildTestData();
  const gw = testGateway(dataDir, options);
  const server = options.listen ? serve(gw.app, { port: 0, hostname: "127.0.0.1", silent: true }) : null;
  await server?.ready();
  return {
    gw,
    dataDir,
    mirror,
    base: server?.url?.replace(/\/$/, "") ?? "",
    async close() {
      gw.close();
      await server?.close(true);
      for (const dir of [dataDir, mirror]) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A started gateway on a loopback port with an operator API key, and a GET through the app that sends the key. */
export interface KeyedGateway extends StartedGateway {
  key: string;
  get(path: string): Promise<Response>;
}

/** Builds the test snapshot, starts a gateway on it (listening, for MCP clients) and issues it a key labelled `label`. */
export async function startKeyedGateway(label: string): Promise<KeyedGateway> {
  const started = await startTestGateway({ listen: true });
  const key = (await started.gw.keys.create(label)).key;
  return { ...started, key, get: (path) => started.gw.get(path, { headers: { authorization: `Bearer ${key}` } }) };
}
