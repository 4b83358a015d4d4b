// The offline quick start as the README tells it, on a clone with nothing beside it: `npm start` from the repository's
// EDGAR fixtures builds the tickers they really cover, and every example URL of the README and of docs/ answers as it says.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runBuild } from "../build/pipeline/run.ts";
import { createDirSource } from "../build/sources/dir.ts";
import { KeyStore } from "../gateway/payment/keys.ts";
import { ROUTES } from "../schemas/api.ts";
import { memoryLogger } from "../test/_logger.ts";
import { Manifest } from "../schemas/snapshot.ts";
import { readJson } from "../storage/json.ts";
import { manifestKey } from "../storage/layout.ts";
import { openStorage } from "../storage/open.ts";
import { describeEdgar, EDGAR_DIR } from "../test/_edgar.ts";
import { removeDir } from "../test/_s3.ts";
import { FIXTURE_UNIVERSE } from "./start.ts";

const ROOT = join(import.meta.dirname, "..");
const README = readFileSync(join(ROOT, "README.md"), "utf8");
/** The README and every page of docs/ (issue 42 moved the depth there): their examples are held to the same test. */
const DOCS = [README, ...readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => readFileSync(join(ROOT, "docs", f), "utf8"))];
/** Paths that are not plain GETs (Stripe, MCP): their examples are checked elsewhere. */
const NOT_GET = /^\/(mcp|billing|webhooks|subscribe)/;

/** Every `http://127.0.0.1:3000/…` URL in the code blocks of `pages`, with the status its line says (404) or 200. */
function examples(pages: readonly string[]): { path: string; status: number }[] {
  const blocks = pages.flatMap((page) => page.match(/```sh\n[\s\S]*?```/g) ?? []);
  const out = new Map<string, number>();
  for (const line of blocks.join("\n").split("\n")) {
    for (const [, path] of line.matchAll(/http:\/\/127\.0\.0\.1:3000(\/[^\s"'`]*)/g)) {
      if (!NOT_GET.test(path!)) out.set(path!, /\b404\b/.test(line) ? 404 : 200);
    }
  }
  return [...out].map(([path, status]) => ({ path, status }));
}

it("the README names every route with its price, and every MCP tool", () => {
  for (const route of ROUTES) {
    if (route.price) expect(README, route.path).toContain(`| GET | \`${route.path}\` | ${route.price} |`);
    if (route.tool) expect(README, route.tool).toContain(`\`${route.tool}\``);
  }
});

describeEdgar("the offline quick start", () => {
  it("a build of every ticker of the fixtures' company_tickers.json fails none and covers exactly the tickers npm start seeds", async () => {
    const data = mkdtempSync(join(tmpdir(), "start-seed-"));
    const storage = openStorage(data);
    const summary = await runBuild({ source: createDirSource(EDGAR_DIR), storage, log: memoryLogger(), workers: 0, lookbackDays: 1 });
    expect(summary).toMatchObject({ tickers: 9603, failed: 0, failed_tickers: [] });
    const manifest = (await readJson(storage, manifestKey(summary.build_id), Manifest))!;
    expect(Object.keys(manifest.tickers).filter((t) => manifest.tickers[t]!.covered).sort()).toEqual([...FIXTURE_UNIVERSE].sort());
    removeDir(data);
  }, 60_000);

  describe("npm start, then the README's examples", () => {
    let data: string;
    let child: ChildProcess;
    let base: string;
    let key: string;
    let firstBuild: Record<string, unknown> = {};
    const get = (path: string) => fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } });

    beforeAll(async () => {
      const offline = /^EDGAR_SOURCE=(dir:\S+) npm start$/m.exec(README);
      if (!offline) throw new Error("the README has no offline `EDGAR_SOURCE=dir:… npm start` command");
      data = mkdtempSync(join(tmpdir(), "start-readme-"));
      key = (await new KeyStore(openStorage(data)).create("readme")).key;
      child = spawn(process.execPath, ["bin/start.ts"], {
        cwd: ROOT,
        env: { ...process.env, DATA_URL: data, EDGAR_SOURCE: offline[1], PORT: "0", SNAPSHOT_POLL_MS: "100", LOG_LEVEL: "info" },
        stdio: ["ignore", "ignore", "pipe"],
      });
      base = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stderr! }).on("line", (line) => {
          if (line.includes('"first_build_done"')) firstBuild = JSON.parse(line);
          if (line.includes('"listening"')) resolve(String(JSON.parse(line).url).replace(/\/$/, ""));
        });
        child.once("exit", (code) => reject(new Error(`npm start exited with ${code}`)));
      });
    }, 60_000);
    afterAll(() => {
      child?.kill("SIGKILL");
      if (data) removeDir(data);
    });

    it("npm start builds the seed offline and serves it: GET /tickers lists the nine, and the log reports as the README says", async () => {
      expect(README).toMatch(/`first_build_done` reports `"tickers":9,"covered":9,…,"failed":0`/);
      expect(firstBuild).toMatchObject({ tickers: 9, covered: 9, failed: 0, failed_tickers: [] });
      const list = (await (await get("/tickers")).json()).data.map((t: { ticker: string }) => t.ticker);
      expect(list).toEqual([...FIXTURE_UNIVERSE].sort());
    });

    it("every example URL of the README and of docs/ answers as its line says (200 with a key, or 404)", async () => {
      const all = examples(DOCS);
      expect(examples([README]).length).toBeGreaterThan(15);
      expect(all.length).toBeGreaterThan(25);
      // Each paid route has its example, the routes across companies too (issue 42).
      for (const route of ["/filings/latest", "/earnings/summary", "/insiders", "/financials", "/segments", "/screen", "/market/insiders", "/market/filings"]) {
        expect(examples([README]).some((e) => e.path.startsWith(`${route}?`) && e.status === 200)).toBe(true);
      }
      const answers = await Promise.all(all.map(async ({ path, status }) => ({ path, expected: status, got: (await get(path)).status })));
      expect(answers.filter((a) => a.got !== a.expected)).toEqual([]);
    });

    it("the README's --tickers example refreshes AAPL with ten years of Form 4s; the other tickers stay served", async () => {
      const line = README.split("\n").find((l) => /^npm run dataset -- build --source dir:\S+ --out data --tickers AAPL --lookback-days \d+/.test(l));
      if (!line) throw new Error("the README has no `--tickers AAPL --lookback-days` build example");
      const args = line.replace(/\s+#.*$/, "").split(/\s+/).slice(4).map((a) => (a === "data" ? data : a));
      const { stdout } = await promisify(execFile)(process.execPath, ["build/commands/cli.ts", ...args], { cwd: ROOT, env: { ...process.env, LOG_LEVEL: "error" } });
      expect(stdout).toMatch(/1 tickers built \(8 more carried forward unchanged\)/);
      let rows: unknown[] = [];
      for (let i = 0; i < 100 && rows.length === 0; i++) {
        rows = (await (await get("/insiders?ticker=AAPL&since=2022-01-01")).json()).data;
        if (!rows.length) await new Promise((r) => setTimeout(r, 100));
      }
      // AAPL's Form 4 0000320193-22-000061 (fixtures: Archives/edgar/data/320193/000032019322000061/), filed 2022-05-06.
      expect(rows).toEqual(expect.arrayContaining([expect.objectContaining({ source_accession: "0000320193-22-000061" })]));
      const list = (await (await get("/tickers")).json()).data.map((t: { ticker: string }) => t.ticker);
      expect(list).toEqual([...FIXTURE_UNIVERSE].sort());
    }, 60_000);
  });
});
