// A full build's cross-company documents (issue 40): each company's part is spooled to local files as the company is
// built (its row of each screen, frame × metric; its feeds' rows, by day), then each screen and each feed day is
// written once, sorted, beside an index of the company documents they were made from. Memory holds a few screens.
import { createHash } from "node:crypto";
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Storage } from "unstorage";
import { newestFiling, newestInsider, type CompanyInfo, type CrossIndex, type CrossManifest, type CrossRef, type MarketFiling } from "../../schemas/cross.ts";
import { FINANCIAL_METRIC_NAMES, type FinancialMetricName } from "../../schemas/financials.ts";
import { crossKey } from "../../storage/layout.ts";
import type { CompanyCross } from "../pipeline/company.ts";
import { feedFrom } from "../pipeline/documents.ts";
import type { DocumentRefs } from "../publish/snapshot.ts";

/** Spooled text held in memory before it is appended to its file. */
const FLUSH_BYTES = 4 * 1024 * 1024;
/** Screens made and written at once. */
const SCREENS_AT_ONCE = 8;

/** Collects a build's companies and writes their cross-company documents. */
export class CrossAssembler {
  readonly #dir = mkdtempSync(join(tmpdir(), "cross-spool-"));
  readonly #pending = new Map<string, string[]>();
  #pendingBytes = 0;
  readonly #companies: CrossIndex["companies"] = {};

  /** Spools a company built by this build (its documents' references name the hashes the index records). */
  add(cross: CompanyCross, refs: DocumentRefs): void {
    const { company } = cross;
    this.#companies[company.ticker] = { ...company, screen: refs.screen?.sha256 ?? null, filings: refs.filings?.sha256 ?? null, insiders: refs.insiders?.sha256 ?? null };
    // A file per screen, named by frame and metric (neither holds a "-"); each line opens with the ticker, so a sort orders them.
    const ticker = JSON.stringify(company.ticker);
    for (const [frame, byMetric] of Object.entries(cross.frames)) {
      for (const [metric, states] of Object.entries(byMetric)) this.#spool(`screen-${frame}-${metric}`, `{"ticker":${ticker},"states":${states}}\n`);
    }
    for (const filing of cross.filings) this.#spool(`filings-${filing.filed_at}`, `${JSON.stringify(marketFiling(filing, company))}\n`);
    for (const row of cross.insiders) this.#spool(`insiders-${row.transaction_date}`, `${JSON.stringify({ ...row, ticker: company.ticker, name: company.name })}\n`);
  }

  /**
   * Writes every screen and feed day, and the index, under `buildId`; a document whose content `previous` names is
   * referenced where it was written. The parts were validated where they were made (the frames' timelines on the
   * worker, the feeds' rows in their documents): these are their concatenation, sorted.
   */
  async write(storage: Storage, buildId: string, builtAt: string, previous: CrossManifest | undefined): Promise<CrossManifest> {
    this.#flush();
    const files = readdirSync(this.#dir);
    const store = async (key: string, previousRef: CrossRef | undefined, text: string): Promise<CrossRef> => {
      const sha256 = createHash("sha256").update(text).digest("hex").slice(0, 32);
      if (previousRef?.sha256 === sha256) return previousRef;
      await storage.setItemRaw(key, new TextEncoder().encode(text));
      return { key, sha256 };
    };
    const screens: CrossManifest["screens"] = {};
    // A screen is its companies' rows in ticker order (each line opens with its ticker), joined. A few are made and
    // written at once (an object store takes tens of milliseconds a write): memory holds those few.
    const screenFiles = files.filter((f) => f.startsWith("screen-")).sort();
    const writeNext = async (): Promise<void> => {
      for (let file = screenFiles.shift(); file !== undefined; file = screenFiles.shift()) {
        const [frame, metric] = file.slice("screen-".length).split("-") as [string, FinancialMetricName];
        const rows = this.#lines(file).sort();
        const text = `{"frame":${JSON.stringify(frame)},"metric":"${metric}","companies":[${rows.join(",")}]}`;
        (screens[frame] ??= {})[metric] = { ...(await store(crossKey(buildId, { screen: [frame, metric] }), previous?.screens[frame]?.[metric], text)), rows: rows.length };
      }
    };
    await Promise.all(Array.from({ length: SCREENS_AT_ONCE }, writeNext));
    const days = async <T>(feed: "filings" | "insiders", order: (a: T, b: T) => number, before: CrossManifest["market_filings"] | undefined) => {
      const out: CrossManifest["market_filings"] = {};
      const from = feedFrom(builtAt, feed);
      const dayFiles = files.filter((f) => f.startsWith(`${feed}-`) && f.slice(feed.length + 1) >= from).sort();
      await Promise.all(
        dayFiles.map(async (file) => {
          const day = file.slice(feed.length + 1);
          const rows = this.#lines(file)
            .map((line) => ({ line, row: JSON.parse(line) as T }))
            .sort((a, b) => order(a.row, b.row))
            .map((r) => r.line);
          const text = `{"day":"${day}","data":[${rows.join(",")}]}`;
          out[day] = { ...(await store(crossKey(buildId, { feed, day }), before?.[day], text)), rows: rows.length };
        }),
      );
      return Object.fromEntries(Object.keys(out).sort().map((day) => [day, out[day]!]));
    };
    const market_filings = await days("filings", newestFiling, previous?.market_filings);
    const market_insiders = await days("insiders", newestInsider, previous?.market_insiders);
    const companies = Object.fromEntries(Object.entries(this.#companies).sort(([a], [b]) => (a < b ? -1 : 1)));
    const index = await store(crossKey(buildId, "index"), previous?.index, JSON.stringify({ companies } satisfies CrossIndex));
    return {
      build_id: buildId,
      built_at: builtAt,
      index,
      screens: inOrder(screens),
      filings_from: feedFrom(builtAt, "filings"),
      market_filings,
      insiders_from: feedFrom(builtAt, "insiders"),
      market_insiders,
    };
  }

  /** Removes the spool. */
  dispose(): void {
    rmSync(this.#dir, { recursive: true, force: true });
  }

  #spool(file: string, line: string): void {
    const list = this.#pending.get(file);
    if (list) list.push(line);
    else this.#pending.set(file, [line]);
    this.#pendingBytes += line.length;
    if (this.#pendingBytes >= FLUSH_BYTES) this.#flush();
  }

  #flush(): void {
    for (const [file, lines] of this.#pending) appendFileSync(join(this.#dir, file), lines.join(""));
    this.#pending.clear();
    this.#pendingBytes = 0;
  }

  #lines(file: string): string[] {
    return readFileSync(join(this.#dir, file), "utf8").split("\n").filter((l) => l !== "");
  }
}

/** The screens as written at once, listed in order: frames sorted, each frame's metrics in the metrics' order. */
function inOrder(screens: CrossManifest["screens"]): CrossManifest["screens"] {
  const metrics = (refs: CrossManifest["screens"][string]) => Object.fromEntries(FINANCIAL_METRIC_NAMES.filter((m) => refs[m]).map((m) => [m, refs[m]!]));
  return Object.fromEntries(Object.keys(screens).sort().map((frame) => [frame, metrics(screens[frame]!)]));
}

/** A filing of the market feed: the item and its company. */
function marketFiling(filing: MarketFiling | Omit<MarketFiling, "ticker" | "cik" | "name">, company: Pick<CompanyInfo, "ticker" | "cik" | "name">): MarketFiling {
  return { ...filing, ticker: company.ticker, cik: company.cik, name: company.name };
}
