// The cross-company answers' data (issue 40): the last full build's documents (a screen by frame and metric, the market
// feeds by day), with every company the manifest names differently laid over them — the follower's publishes since, a
// --tickers build, a company the build failed — read from that company's own documents. Nothing is derived here.
import type { Storage } from "unstorage";
import { LATEST } from "../../schemas/earnings-history.ts";
import { newestFiling, newestInsider, readState, type CompanyInfo, type CrossIndex, type CrossManifest, type MarketFiling, type MarketInsider, type ScreenCompanyDocument, type ScreenDocument, type ScreenValue, type StoredState } from "../../schemas/cross.ts";
import type { FilingItem } from "../../schemas/filing.ts";
import type { FinancialMetricName } from "../../schemas/financials.ts";
import type { InsiderTransaction } from "../../schemas/insider.ts";
import { readText } from "../../storage/json.ts";
import { ApiError } from "../http/errors.ts";
import { ByteLru } from "../http/lru.ts";
import type { LoadedSnapshot, SnapshotStore } from "./snapshot.ts";

/** A company's value in a screen: who it is, and its value on the date asked. */
export interface Ranked {
  company: CompanyInfo;
  value: ScreenValue;
}

/** What a snapshot lays over the last full build, by CIK. */
interface Overlay {
  /** The last full build's cross-company documents. */
  cross: CrossManifest;
  /** Companies of the build's index, by CIK, with the hashes of the documents it was made from; their CIK by main ticker. */
  indexed: Map<number, { company: CompanyInfo; hashes: Pick<CrossIndex["companies"][string], "screen" | "filings" | "insiders"> }>;
  ciks: Map<string, number>;
  /** Covered companies whose documents differ from the index's (or are not in it), with the ticker whose documents they are. */
  screen: Map<number, string>;
  filings: Map<number, string>;
  insiders: Map<number, string>;
  /** Companies of the index the manifest no longer covers. */
  gone: Set<number>;
  /** Each covered company's main ticker and name, by CIK (a company new since the build names its first ticker). */
  companies: Map<number, { ticker: string; name: string }>;
}

/** Screens ranked for a date, and feeds merged, kept per snapshot and question (a few hundred kilobytes each at most). */
const RANKINGS = 64;

/** Reads the cross-company documents of the served snapshot, each once, into a byte-budgeted cache. */
export class CrossView {
  readonly #storage: Storage;
  readonly #snapshots: SnapshotStore;
  readonly #cache: ByteLru<unknown>;
  readonly #loading = new Map<string, Promise<unknown>>();
  readonly #overlays = new WeakMap<LoadedSnapshot, Promise<Overlay>>();
  readonly #ranked = new WeakMap<LoadedSnapshot, Map<string, Promise<unknown>>>();

  constructor(storage: Storage, snapshots: SnapshotStore, cacheBytes: number) {
    this.#storage = storage;
    this.#snapshots = snapshots;
    this.#cache = new ByteLru(cacheBytes);
  }

  /** Every company with a value of `metric` for `frame` on `date` (LATEST: today's answers), largest first, ties by ticker. */
  screen(snapshot: LoadedSnapshot, frame: string, metric: FinancialMetricName, date = LATEST): Promise<Ranked[]> {
    return this.#memo(snapshot, `screen ${frame} ${metric} ${date}`, async () => {
      const overlay = await this.#overlay(snapshot);
      const out: Ranked[] = [];
      const ref = overlay.cross.screens[frame]?.[metric];
      if (ref) {
        const doc = await this.#json<ScreenDocument>(ref.key);
        for (const entry of doc.companies) {
          const company = overlay.indexed.get(overlay.ciks.get(entry.ticker) ?? -1)?.company;
          if (!company || overlay.screen.has(company.cik) || overlay.gone.has(company.cik)) continue;
          const value = stateOn(entry.states, date);
          if (value) out.push({ company, value });
        }
      }
      for (const ticker of overlay.screen.values()) {
        const doc = await this.#companyScreen(snapshot, ticker);
        const value = doc && stateOn(doc.frames[frame]?.[metric] ?? [], date);
        if (value) out.push({ company: doc.company, value });
      }
      return out.sort((a, b) => b.value.value - a.value.value || (a.company.ticker < b.company.ticker ? -1 : 1));
    });
  }

  /** Every covered company's filings filed on or after `since`, newest first (acceptance time, then accession). */
  filings(snapshot: LoadedSnapshot, since: string): Promise<MarketFiling[]> {
    return this.#feed(snapshot, since, {
      feed: "filings",
      cikOf: (row) => row.cik,
      own: (row: FilingItem, cik, company) => (row.filed_at >= since ? { ...row, ticker: company.ticker, cik, name: company.name } : null),
      order: newestFiling,
    });
  }

  /** Every covered issuer's Form 4 rows with a transaction on or after `since`, newest first, each filing's rows in order. */
  insiders(snapshot: LoadedSnapshot, since: string): Promise<MarketInsider[]> {
    return this.#feed(snapshot, since, {
      feed: "insiders",
      cikOf: (row) => row.issuer_cik,
      own: (row: InsiderTransaction, _cik, company) => (row.transaction_date !== null && row.transaction_date >= since ? { ...row, ticker: company.ticker, name: company.name } : null),
      order: newestInsider,
    });
  }

  /**
   * A market feed from `since`: the build's days, less the companies laid over them, and those companies' own rows
   * (their per-ticker document, as the snapshot names it), in the feed's order.
   */
  #feed<Row, Own>(
    snapshot: LoadedSnapshot,
    since: string,
    spec: { feed: "filings" | "insiders"; cikOf: (row: Row) => number; own: (row: Own, cik: number, company: { ticker: string; name: string }) => Row | null; order: (a: Row, b: Row) => number },
  ): Promise<Row[]> {
    return this.#memo(snapshot, `${spec.feed} ${since}`, async () => {
      const overlay = await this.#overlay(snapshot);
      const [from, days] = spec.feed === "filings" ? [overlay.cross.filings_from, overlay.cross.market_filings] : [overlay.cross.insiders_from, overlay.cross.market_insiders];
      requireReach(from, since, spec.feed);
      const laid = overlay[spec.feed];
      const out: Row[] = [];
      for (const [day, ref] of Object.entries(days)) {
        if (day < since) continue;
        for (const row of (await this.#json<{ data: Row[] }>(ref.key)).data) if (!laid.has(spec.cikOf(row)) && !overlay.gone.has(spec.cikOf(row))) out.push(row);
      }
      for (const [cik, ticker] of laid) {
        const company = overlay.companies.get(cik)!;
        for (const row of await this.#rows<Own>(snapshot, ticker, spec.feed)) {
          const mine = spec.own(row, cik, company);
          if (mine) out.push(mine);
        }
      }
      return out.sort(spec.order);
    });
  }

  /** A value computed once per snapshot and key (a few dozen kept): the same question reads the same list. */
  #memo<T>(snapshot: LoadedSnapshot, key: string, make: () => Promise<T>): Promise<T> {
    let memo = this.#ranked.get(snapshot);
    if (!memo) this.#ranked.set(snapshot, (memo = new Map()));
    const known = memo.get(key);
    if (known) {
      memo.delete(key);
      memo.set(key, known);
      return known as Promise<T>;
    }
    const made = make();
    made.catch(() => memo.delete(key)); // a failed read is tried again by the next request
    memo.set(key, made);
    if (memo.size > RANKINGS) memo.delete(memo.keys().next().value!);
    return made;
  }

  /** The snapshot's overlay over its last full build, made once per snapshot. */
  #overlay(snapshot: LoadedSnapshot): Promise<Overlay> {
    let made = this.#overlays.get(snapshot);
    if (!made) {
      made = this.#makeOverlay(snapshot);
      made.catch(() => this.#overlays.delete(snapshot));
      this.#overlays.set(snapshot, made);
    }
    return made;
  }

  async #makeOverlay(snapshot: LoadedSnapshot): Promise<Overlay> {
    const cross = snapshot.manifest.cross;
    if (!cross) {
      throw new ApiError("storage_unavailable", "The published snapshot has no cross-company documents yet.", {
        hint: "They come with the next full build (`dataset build`); per-company endpoints answer meanwhile. Nothing was charged.",
        headers: { "retry-after": "60" },
      });
    }
    const index = await this.#json<CrossIndex>(cross.index.key);
    const indexed = new Map(Object.values(index.companies).map(({ screen, filings, insiders, ...company }) => [company.cik, { company, hashes: { screen, filings, insiders } }]));
    const ciks = new Map([...indexed.values()].map(({ company }) => [company.ticker, company.cik]));
    const overlay: Overlay = { cross, indexed, ciks, screen: new Map(), filings: new Map(), insiders: new Map(), gone: new Set(), companies: new Map() };
    const covered = new Set<number>();
    for (const [ticker, entry] of Object.entries(snapshot.manifest.tickers)) {
      if (!entry.covered || covered.has(entry.cik)) continue;
      covered.add(entry.cik);
      const known = indexed.get(entry.cik);
      // A company's tickers share its documents: any of them names them; the index's main ticker names the company.
      overlay.companies.set(entry.cik, { ticker: known?.company.ticker ?? ticker, name: known?.company.name ?? entry.name });
      const docs = entry.documents ?? {};
      if (docs.screen && docs.screen.sha256 !== known?.hashes.screen) overlay.screen.set(entry.cik, ticker);
      if (docs.filings && docs.filings.sha256 !== known?.hashes.filings) overlay.filings.set(entry.cik, ticker);
      if (docs.insiders && docs.insiders.sha256 !== known?.hashes.insiders) overlay.insiders.set(entry.cik, ticker);
    }
    for (const cik of indexed.keys()) if (!covered.has(cik)) overlay.gone.add(cik);
    return overlay;
  }

  /** A company's screen document as the snapshot names it; null when it has none (a snapshot from before them). */
  async #companyScreen(snapshot: LoadedSnapshot, ticker: string): Promise<ScreenCompanyDocument | null> {
    const key = snapshot.manifest.tickers[ticker]?.documents?.screen?.key;
    return key ? this.#json<ScreenCompanyDocument>(key) : null;
  }

  /** A company's filings or insiders rows, from the document cache the per-ticker routes share. */
  async #rows<T>(snapshot: LoadedSnapshot, ticker: string, kind: "filings" | "insiders"): Promise<T[]> {
    return (await this.#snapshots.document(snapshot, ticker, kind)).doc.rows as T[];
  }

  /** A stored document parsed once (concurrent readers share the read); 503 when storage cannot give it. */
  #json<T>(key: string): Promise<T> {
    const held = this.#cache.get(key);
    if (held !== undefined) return Promise.resolve(held as T);
    let loading = this.#loading.get(key);
    if (!loading) {
      loading = (async () => {
        let text: string | null;
        try {
          text = await readText(this.#storage, key);
        } catch {
          throw new ApiError("storage_unavailable", "A cross-company document could not be read from storage.", { headers: { "retry-after": "5" } });
        }
        if (text === null) throw new ApiError("storage_unavailable", "A cross-company document is not in storage.", { headers: { "retry-after": "5" } });
        // Trusted inside: the builder wrote it from validated parts (build/cross/assemble.ts).
        const value = JSON.parse(text) as T;
        this.#cache.set(key, value, text.length * 3);
        return value;
      })().finally(() => this.#loading.delete(key));
      this.#loading.set(key, loading);
    }
    return loading as Promise<T>;
  }
}

/** The value in effect on `date`: the last state from on or before it (null when none, or none from then). */
function stateOn(states: readonly StoredState[], date: string): ScreenValue | null {
  let at: StoredState | undefined;
  for (const state of states) {
    if (state[0] > date) break;
    at = state;
  }
  return at ? readState(at).row : null;
}

/** Refuses a `since` before what the last build's feeds reach (they reach FEED_DAYS back from it). */
function requireReach(from: string, since: string, feed: string): void {
  if (since >= from) return;
  throw new ApiError("storage_unavailable", `The ${feed} feed reaches back to ${from}, the last build's window; ${since} is before it.`, {
    hint: "Ask for a later `since`; the next build moves the window forward. Nothing was charged.",
  });
}

