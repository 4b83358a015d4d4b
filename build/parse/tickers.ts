// company_tickers.json (or company_tickers_exchange.json) → the ticker universe: ticker → CIK and name.
// Pure: text or object in, map out. Tickers are normalised to EDGAR's form (BRK.B → BRK-B).
import { z } from "zod";
import { normalizeTicker, Ticker, toCik } from "../../schemas/primitives.ts";
import { EdgarParseError, parseJsonText } from "../errors.ts";
import { TICKERS_PATH } from "../sources/paths.ts";

// EDGAR's two shapes, loose: {"0": {cik_str, ticker, title}, …} and {fields: [...], data: [[…], …]}.
const TickersObject = z.record(z.string(), z.object({ cik_str: z.unknown(), ticker: z.string(), title: z.string() }));
const TickersTable = z.object({ fields: z.array(z.string()), data: z.array(z.array(z.unknown())) });

/** One ticker of the universe. */
export interface TickerEntry {
  ticker: string;
  cik: number;
  name: string;
}

/** The universe: every ticker, and every ticker of a CIK (GOOG and GOOGL share 1652044). */
export interface TickerMap {
  byTicker: Map<string, TickerEntry>;
  byCik: Map<number, string[]>;
}

const SUBJECT = { path: TICKERS_PATH };

/** Parses SEC's ticker file; a ticker listed twice keeps its first CIK (EDGAR lists by size, largest first). */
export function parseCompanyTickers(input: string | unknown): TickerMap {
  const raw = typeof input === "string" ? parseJsonText(input, SUBJECT) : input;
  const rows = readRows(raw);
  const map: TickerMap = { byTicker: new Map(), byCik: new Map() };
  for (const row of rows) {
    const ticker = normalizeTicker(row.ticker);
    const cik = toCik(row.cik);
    // A ticker we cannot serve safely (not EDGAR's shape) or a row without a CIK is left out, never guessed at.
    if (cik === null || !Ticker.safeParse(ticker).success || map.byTicker.has(ticker)) continue;
    map.byTicker.set(ticker, { ticker, cik, name: row.name });
    const shared = map.byCik.get(cik);
    if (shared) shared.push(ticker);
    else map.byCik.set(cik, [ticker]);
  }
  if (map.byTicker.size === 0) throw new EdgarParseError(SUBJECT, "no tickers in the file");
  return map;
}

/** Looks a user's ticker up in any spelling (`brk.b`, `BRK/B`, `BRK-B`). */
export function resolveTicker(map: TickerMap, input: string): TickerEntry | undefined {
  return map.byTicker.get(normalizeTicker(input));
}

function readRows(raw: unknown): { ticker: string; cik: unknown; name: string }[] {
  const table = TickersTable.safeParse(raw);
  if (table.success) {
    const [c, n, t] = ["cik", "name", "ticker"].map((f) => table.data.fields.indexOf(f));
    if (c === undefined || n === undefined || t === undefined || c < 0 || n < 0 || t < 0) {
      throw new EdgarParseError(SUBJECT, `table without cik/name/ticker fields (${table.data.fields.join(", ")})`);
    }
    return table.data.data.map((r) => ({ cik: r[c], name: String(r[n] ?? ""), ticker: String(r[t] ?? "") }));
  }
  const object = TickersObject.safeParse(raw);
  if (!object.success) throw new EdgarParseError(SUBJECT, `not a ticker file: ${object.error.issues[0]?.message}`);
  return Object.values(object.data).map((r) => ({ cik: r.cik_str, name: r.title, ticker: r.ticker }));
}
