// `dataset inspect TICKER`: a readable summary of one ticker in the published snapshot. Reads only.
import type { Storage } from "unstorage";
import { normalizeTicker } from "../../schemas/primitives.ts";
import { CrossIndex, ScreenCompanyDocument } from "../../schemas/cross.ts";
import { EarningsDocument, FilingsDocument, FinancialsDocument, InsidersDocument, type Manifest } from "../../schemas/snapshot.ts";
import { readJson } from "../../storage/json.ts";
import { documentKeyOf } from "../../storage/layout.ts";
import { readPublished } from "../publish/snapshot.ts";

/** Renders the summary as plain text lines; throws when nothing is published or the ticker is not in the universe. */
export async function inspectTicker(storage: Storage, input: string): Promise<string> {
  const published = await readPublished(storage);
  if (!published) throw new Error("nothing is published yet: run `npm run dataset -- build` first");
  const ticker = normalizeTicker(input);
  const entry = published.manifest.tickers[ticker];
  if (!entry) throw new Error(`${ticker} is not in the universe of snapshot ${published.pointer.build_id}`);
  const out = [
    `${ticker} — ${entry.name} (CIK ${entry.cik}${entry.earlier_ciks?.length ? `; history also under CIK ${entry.earlier_ciks.join(", ")}` : ""}), snapshot ${published.pointer.build_id}`,
    `coverage   ${entry.covered ? "covered" : `NOT covered: ${entry.reason}${entry.evidence ? ` — ${entry.evidence}` : ""}`}${entry.error ? ` (last error: ${entry.error})` : ""}`,
    `counts     filings ${entry.counts.filings}, earnings periods ${entry.counts.earnings_periods}, insider rows ${entry.counts.insider_transactions}` +
      (entry.counts.financials_periods === undefined ? "" : `, financials rows ${entry.counts.financials_periods}`),
    `freshness  newest filing ${entry.freshness.newest_filing ?? "-"}, newest period end ${entry.freshness.newest_period_end ?? "-"}, ` +
      `newest Form 4 ${entry.freshness.newest_form4 ?? "-"}, built ${entry.freshness.built_at ?? "-"}`,
  ];
  const exceptions = entry.earnings_exceptions;
  if (exceptions?.periods) {
    const rules = Object.entries(exceptions).filter(([rule, n]) => rule !== "periods" && n > 0).map(([rule, n]) => `${rule} ${n}`);
    out.push(`exceptions ${exceptions.periods} earnings periods marked (${rules.join(", ")}): see each period's exceptions and reconciliation`);
  }
  const statements = entry.financials_exceptions;
  if (statements?.periods) {
    const rules = Object.entries(statements).filter(([rule, n]) => rule !== "periods" && n > 0).map(([rule, n]) => `${rule} ${n}`);
    out.push(`exceptions ${statements.periods} financials rows marked (${rules.join(", ")}): see each row's exceptions and reconciliation`);
  }
  if (entry.documents_from) {
    const why = entry.error ? "its source failed in a later build" : "later builds were --tickers builds without it";
    out.push(`documents  kept from snapshot ${entry.documents_from} (${why})`);
  }
  if (entry.form4) {
    out.push(`form 4     ${entry.form4.cached} cached, ${entry.form4.fetched} fetched, ${entry.form4.missing.length} missing, ${entry.form4.unreadable.length} unreadable`);
  }
  if (!entry.covered) return out.join("\n");

  const { manifest } = published;
  const filings = await readJson(storage, documentKeyOf(manifest, ticker, "filings"), FilingsDocument);
  const earnings = await readJson(storage, documentKeyOf(manifest, ticker, "earnings"), EarningsDocument);
  const insiders = await readJson(storage, documentKeyOf(manifest, ticker, "insiders"), InsidersDocument);
  const financials = entry.endpoints["/financials"] === undefined ? null : await readJson(storage, documentKeyOf(manifest, ticker, "financials"), FinancialsDocument);
  out.push("", "newest filings:");
  for (const f of filings?.data.slice(0, 5) ?? []) out.push(`  ${f.filed_at}  ${f.form.padEnd(8)} ${f.accession_number}  ${f.primary_document_description ?? ""}`);
  out.push("", "latest periods:");
  for (const p of earnings?.data.slice(0, 6) ?? []) {
    const m = p.metrics;
    const fmt = (v: number | undefined) => (v === undefined ? "-" : v.toLocaleString("en-US"));
    out.push(
      `  ${p.fiscal_quarter} ${p.fiscal_year} ${p.period_start}..${p.period_end} (${p.months}m${p.derived ? ", derived" : ""})  ` +
        `revenue ${fmt(m.revenue?.value)}  net income ${fmt(m.net_income?.value)}  EPS diluted ${fmt(m.eps_diluted?.value)}  [${p.source_accession}]`,
    );
  }
  const fmt = (m: { value: number; derived: boolean } | null | undefined) => (m ? `${m.value.toLocaleString("en-US")}${m.derived ? "*" : ""}` : "-");
  const year = financials?.data.find((p) => p.fiscal_quarter === "FY" && p.ttm === null);
  const ttm = financials?.data.find((p) => p.ttm !== null);
  if (year) {
    const [b, c] = [year.balance, year.cash_flow];
    out.push("", `latest fiscal year's statements (FY ${year.fiscal_year}, ${year.period_end}; * derived):`);
    out.push(`  balance    assets ${fmt(b?.total_assets)}  liabilities ${fmt(b?.total_liabilities)}  equity ${fmt(b?.equity)}  cash ${fmt(b?.cash)}  debt ${fmt(b?.total_debt)}`);
    out.push(`  cash flow  operating ${fmt(c?.operating_cash_flow)}  capex ${fmt(c?.capital_expenditure)}  free ${fmt(c?.free_cash_flow)}  dividends ${fmt(c?.dividends_paid)}  repurchases ${fmt(c?.share_repurchases)}`);
  }
  if (ttm) {
    const gaps = ttm.ttm!.unavailable.map((u) => u.metric).join(", ");
    out.push(`  TTM to ${ttm.period_end} (${ttm.ttm!.basis})  revenue ${fmt(ttm.income?.revenue)}  net income ${fmt(ttm.income?.net_income)}  operating cash flow ${fmt(ttm.cash_flow?.operating_cash_flow)}${gaps ? `  [null: ${gaps}]` : ""}`);
  }
  out.push("", ...(await crossLines(storage, published.manifest, ticker)));
  out.push("", "latest insider rows:");
  for (const t of insiders?.data.slice(0, 5) ?? []) {
    out.push(
      `  ${t.transaction_date ?? "-"} ${t.transaction_code ?? "?"} ${t.acquired_disposed ?? ""} ${t.shares ?? "-"} @ ${t.price_per_share ?? "-"}  ` +
        `${t.owners.map((o) => o.name).join(" / ")}  [${t.source_accession}${t.superseded_by ? `, superseded by ${t.superseded_by}` : ""}]`,
    );
  }
  return out.join("\n");
}

/**
 * The ticker's part in the cross-company answers (issue 40): the frames of its screen document, and whether the last
 * full build's screens and feeds hold its documents as the manifest names them or the gateway lays them over those.
 */
async function crossLines(storage: Storage, manifest: Manifest, ticker: string): Promise<string[]> {
  const entry = manifest.tickers[ticker]!;
  const screen = entry.documents?.screen ? await readJson(storage, entry.documents.screen.key, ScreenCompanyDocument) : null;
  if (!screen) return ["cross      no screen document (published before issue 40): the next build makes one"];
  const frames = Object.keys(screen.frames).sort();
  const out = [`cross      ${frames.length} frames (${frames[0] ?? "-"} … ${frames.filter((f) => f !== "ttm").at(-1) ?? "-"}${frames.includes("ttm") ? ", ttm" : ""}); SIC ${screen.company.sic ?? "-"}, ${screen.company.exchange ?? "no exchange"}`];
  if (!manifest.cross) return [...out, "           no cross-company documents yet: the next full build assembles them"];
  const index = await readJson(storage, manifest.cross.index.key, CrossIndex);
  const held = Object.values(index?.companies ?? {}).find((c) => c.cik === entry.cik);
  const laid = (["screen", "filings", "insiders"] as const).filter((kind) => entry.documents?.[kind] && entry.documents[kind].sha256 !== held?.[kind]);
  out.push(
    laid.length
      ? `           laid over the screens and feeds of build ${manifest.cross.build_id} from its own ${laid.join(", ")} document${laid.length > 1 ? "s" : ""} (published since)`
      : `           in the screens and feeds of build ${manifest.cross.build_id} as published`,
  );
  return out;
}
