// A full build's cross-company documents (issue 40): each company's part is spooled to local files as the company is
// built (its row of each screen, frame × metric; its feeds' rows, by day), then each screen and each feed day is
// written once, sorted, beside an index of the company documents they were made from. Memory holds what JOIN_BYTES
// allows, however large the universe.
import { createHash } from "node:crypto";
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
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
/**
 * Spooled bytes joined and written at once (at least one file, however large). A screen of 10,000 companies is tens of
 * megabytes: eight at once, as strings, took the build's peak RSS from 730 MB to 1.1 GB.
 */
const JOIN_BYTES = 64 * 1024 * 1024;
/** A spool's folder name: the prefix, the building process's id, a random tail. */
const SPOOL_PREFIX = "cross-spool-";
const SPOOL_NAME = /^cross-spool-(\d+)-/;

/** How a screen's spooled line opens: its ticker follows (as JSON: a ticker needs no escape). */
const LINE_HEAD = '{"ticker":"';
const COMMA = Buffer.from(",");
const CLOSE = Buffer.from("]}");

/** Collects a build's companies and writes their cross-company documents. */
export class CrossAssembler {
  readonly #dir: string;
  /** Spooled bytes joined and written at once (JOIN_BYTES; a test makes it small). */
  readonly #joinBytes: number;
  readonly #pending = new Map<string, string[]>();
  #pendingBytes = 0;
  readonly #companies: CrossIndex["companies"] = {};

  constructor(options: { joinBytes?: number; tmp?: string } = {}) {
    this.#joinBytes = options.joinBytes ?? JOIN_BYTES;
    const tmp = options.tmp ?? tmpdir();
    sweepSpools(tmp);
    this.#dir = mkdtempSync(join(tmp, `${SPOOL_PREFIX}${process.pid}-`));
  }

  /** Spools a company built by this build (its documents' references name the hashes the index records). */
  add(cross: CompanyCross, refs: DocumentRefs): void {
    const { company } = cross;
    this.#companies[company.ticker] = { ...company, screen: refs.screen?.sha256 ?? null, filings: refs.filings?.sha256 ?? null, insiders: refs.insiders?.sha256 ?? null };
    // A file per screen, named by frame and metric (neither holds a "-"); each line opens with the ticker, so a sort orders them.
    for (const [frame, byMetric] of Object.entries(cross.frames)) {
      for (const [metric, states] of Object.entries(byMetric)) this.#spool(`screen-${frame}-${metric}`, `${LINE_HEAD}${company.ticker}","states":${states}}\n`);
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
    const store = async (key: string, previousRef: CrossRef | undefined, bytes: Uint8Array): Promise<CrossRef> => {
      const sha256 = createHash("sha256").update(bytes).digest("hex").slice(0, 32);
      if (previousRef?.sha256 === sha256) return previousRef;
      await storage.setItemRaw(key, bytes);
      return { key, sha256 };
    };
    const screens: CrossManifest["screens"] = {};
    // A screen is its companies' rows in ticker order, joined as the bytes they are. Several are made and written at
    // once (an object store takes tens of milliseconds a write), as many as JOIN_BYTES holds.
    const screenFiles = files.filter((f) => f.startsWith("screen-")).sort();
    await withinBudget(
      this.#joinBytes,
      screenFiles.map((file) => ({
        bytes: this.#size(file),
        run: async () => {
          const [frame, metric] = file.slice("screen-".length).split("-") as [string, FinancialMetricName];
          const { bytes, rows } = screenBytes(frame, metric, readFileSync(join(this.#dir, file)));
          (screens[frame] ??= {})[metric] = { ...(await store(crossKey(buildId, { screen: [frame, metric] }), previous?.screens[frame]?.[metric], bytes)), rows };
        },
      })),
    );
    const days = async <T>(feed: "filings" | "insiders", order: (a: T, b: T) => number, before: CrossManifest["market_filings"] | undefined) => {
      const out: CrossManifest["market_filings"] = {};
      const from = feedFrom(builtAt, feed);
      const dayFiles = files.filter((f) => f.startsWith(`${feed}-`) && f.slice(feed.length + 1) >= from).sort();
      await withinBudget(
        this.#joinBytes,
        dayFiles.map((file) => ({
          bytes: this.#size(file),
          run: async () => {
            const day = file.slice(feed.length + 1);
            const rows = this.#lines(file)
              .map((line) => ({ line, row: JSON.parse(line) as T }))
              .sort((a, b) => order(a.row, b.row))
              .map((r) => r.line);
            const bytes = Buffer.from(`{"day":"${day}","data":[${rows.join(",")}]}`);
            out[day] = { ...(await store(crossKey(buildId, { feed, day }), before?.[day], bytes)), rows: rows.length };
          },
        })),
      );
      return Object.fromEntries(Object.keys(out).sort().map((day) => [day, out[day]!]));
    };
    const market_filings = await days("filings", newestFiling, previous?.market_filings);
    const market_insiders = await days("insiders", newestInsider, previous?.market_insiders);
    const companies = Object.fromEntries(Object.entries(this.#companies).sort(([a], [b]) => (a < b ? -1 : 1)));
    const index = await store(crossKey(buildId, "index"), previous?.index, Buffer.from(JSON.stringify({ companies } satisfies CrossIndex)));
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

  #size(file: string): number {
    return statSync(join(this.#dir, file)).size;
  }

  #lines(file: string): string[] {
    return readFileSync(join(this.#dir, file), "utf8").split("\n").filter((l) => l !== "");
  }
}

/**
 * Removes the spools of builds whose process is gone (killed: no finally ran), each up to the size of the build's
 * cross-company documents; a living process's spool is its own.
 */
function sweepSpools(tmp: string): void {
  for (const name of readdirSync(tmp)) {
    const pid = SPOOL_NAME.exec(name)?.[1];
    if (pid !== undefined && !alive(Number(pid))) rmSync(join(tmp, name), { recursive: true, force: true });
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"; // another user's process: alive
  }
}

/**
 * A screen document from its spooled lines: the companies' rows in ticker order, copied once into the document's bytes
 * (as strings the lines, their sorted copy and the joined text each took the spool's size again, and more).
 */
function screenBytes(frame: string, metric: FinancialMetricName, spool: Buffer): { bytes: Buffer; rows: number } {
  const lines: { ticker: string; line: Buffer }[] = [];
  for (let start = 0; start < spool.length; ) {
    const newline = spool.indexOf(10, start);
    const end = newline === -1 ? spool.length : newline;
    const at = start + LINE_HEAD.length;
    if (end > start) lines.push({ ticker: spool.toString("latin1", at, spool.indexOf(34, at)), line: spool.subarray(start, end) });
    start = end + 1;
  }
  // A company is in a screen once, under its main ticker: the tickers order the rows.
  lines.sort((a, b) => (a.ticker < b.ticker ? -1 : a.ticker > b.ticker ? 1 : 0));
  const head = Buffer.from(`{"frame":${JSON.stringify(frame)},"metric":"${metric}","companies":[`);
  const parts = [head, ...lines.flatMap(({ line }, i) => (i ? [COMMA, line] : [line])), CLOSE];
  return { bytes: Buffer.concat(parts), rows: lines.length };
}

/**
 * Runs the tasks, starting each as soon as the bytes of those running leave room for its own within `budget` (one
 * always runs, however large); the first failure stops new starts and is thrown once those running have ended.
 */
async function withinBudget(budget: number, tasks: { bytes: number; run: () => Promise<void> }[]): Promise<void> {
  const running = new Set<Promise<void>>();
  let held = 0;
  let failure: { error: unknown } | null = null;
  for (const task of tasks) {
    while (running.size && held + task.bytes > budget) await Promise.race(running);
    if (failure) break;
    held += task.bytes;
    const done: Promise<void> = task
      .run()
      .catch((error: unknown) => void (failure ??= { error }))
      .finally(() => {
        held -= task.bytes;
        running.delete(done);
      });
    running.add(done);
  }
  await Promise.all(running);
  if (failure) throw (failure as { error: unknown }).error;
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
