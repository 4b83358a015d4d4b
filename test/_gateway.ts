// A gateway over a real snapshot for tests: the shared mirror (with the overlay) built once into a temp folder,
// then the real app wired with an injectable facilitator. No port: requests go through app.fetch.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FacilitatorClient } from "@x402/core/server";
import { serve } from "h3";
import { runBuild } from "../build/pipeline/run.ts";
import { createDirSource } from "../build/sources/dir.ts";
import { loadConfig } from "../gateway/config.ts";
import { createGateway, type Gateway } from "../gateway/serve/server.ts";
import { memoryLogger } from "./_logger.ts";
import { openStorage } from "../storage/open.ts";
import { addTickerRows, makeOverlayMirror, TSM_ROW } from "./_edgar-files.ts";

/** Tickers every gateway test can rely on (see build/pipeline/run.test.ts for what each exercises). */
export const GATEWAY_TICKERS = ["AAPL", "WMT", "HD", "DIS", "UA", "UAA", "JNJ", "MSFT", "TSM", "BRK-B"];

/** Builds the test snapshot into a new folder; returns the folder and the mirror (both for removal). */
export async function buildTestData(): Promise<{ dataDir: string; mirror: string }> {
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

/** The wired gateway over `dataDir`, with env overrides and an optional facilitator. */
export function testGateway(dataDir: string, options: { env?: Record<string, string>; facilitator?: FacilitatorClient } = {}): Gateway & {
  get(path: string, init?: RequestInit): Promise<Response>;
  logs: ReturnType<typeof memoryLogger>["lines"];
} {
  // The free endpoints' per-client limit is off unless a test turns it on (requests through app.fetch share one address).
  const config = loadConfig({ DATA_URL: dataDir, PUBLIC_BASE_URL: "https://api.example.test", FACILITATOR_TIMEOUT_MS: "1500", FREE_RATE_PER_MINUTE: "0", ...options.env });
  const logger = memoryLogger();
  const gateway = createGateway(config, { log: logger.log.bind(logger), ...(options.facilitator ? { facilitator: options.facilitator } : {}) });
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
