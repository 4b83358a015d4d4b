// The operator's coverage report: one static HTML page from a manifest — coverage by reason, the failed companies, a
// freshness histogram and a searchable per-ticker table. Pure: manifest in, HTML out (the CLI writes it beside the snapshot).
import { AGE_BUCKETS, summarizeFreshness } from "../../schemas/probe.ts";
import type { Manifest } from "../../schemas/snapshot.ts";
import { failureOf } from "./failure.ts";

const AGE_LABELS: Record<(typeof AGE_BUCKETS)[number], string> = {
  under_12h: "under 12 h",
  "12h_to_24h": "12–24 h",
  "1d_to_3d": "1–3 days",
  over_3d: "over 3 days",
};

/** Renders the report for one snapshot's manifest. */
export function renderReport(manifest: Manifest): string {
  const entries = Object.entries(manifest.tickers);
  const covered = entries.filter(([, e]) => e.covered).length;
  const statements = entries.filter(([, e]) => e.covered && e.endpoints["/financials"]).length;
  const reasons = new Map<string, number>();
  for (const [, e] of entries) if (!e.covered) reasons.set(e.reason ?? "unknown", (reasons.get(e.reason ?? "unknown") ?? 0) + 1);
  // What `dataset audit` names as findings (issue 39): each failed company, what failed, since when it is stale.
  const failed = entries.flatMap(([ticker, e]) => {
    const failure = failureOf(e);
    if (!failure) return [];
    const cells = [ticker, failure.what, failure.staleSince ?? "not covered: no earlier documents", failure.documentsFrom ?? ""];
    return [`<tr>${cells.map((c) => `<td>${escape(c)}</td>`).join("")}</tr>`];
  });
  const ages = summarizeFreshness(manifest).built_at_age;
  const most = Math.max(1, ...Object.values(ages));
  const rows = entries
    .map(([ticker, e]) => {
      const cells = [
        ticker,
        e.name,
        e.earlier_ciks?.length ? `${e.cik} (history also under ${e.earlier_ciks.join(", ")})` : String(e.cik),
        e.covered ? "covered" : `not covered: ${e.reason ?? "unknown"}`,
        String(e.counts.filings),
        String(e.counts.earnings_periods),
        String(e.counts.insider_transactions),
        e.counts.financials_periods === undefined ? "" : String(e.counts.financials_periods),
        e.freshness.newest_filing ?? "",
        e.freshness.newest_period_end ?? "",
        e.freshness.newest_form4 ?? "",
        e.freshness.built_at ?? "",
      ];
      return `<tr class="${e.covered ? "covered" : "uncovered"}">${cells.map((c) => `<td>${escape(c)}</td>`).join("")}</tr>`;
    })
    .join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Coverage — ${escape(manifest.build_id)}</title>
<style>
body{font:14px system-ui,sans-serif;margin:2rem;color:#222}table{border-collapse:collapse}td,th{padding:.2rem .6rem;border-bottom:1px solid #ddd;text-align:left}
.bar{background:#4a7;height:1rem;display:inline-block;vertical-align:middle}.uncovered td{color:#888}#search{margin:1rem 0;padding:.3rem;width:20rem}
</style></head><body>
<h1>Coverage report</h1>
<p>Snapshot <code>${escape(manifest.build_id)}</code>, built ${escape(manifest.built_at)} from ${escape(manifest.source)}; ${manifest.requests} requests to the source.</p>
<h2>Coverage</h2>
<table id="coverage"><tr><th>universe</th><td id="universe">${entries.length}</td></tr><tr><th>covered</th><td id="covered">${covered}</td></tr>
<tr><th>with financial statements (/financials)</th><td id="financials">${statements}</td></tr>
${[...reasons].map(([r, n]) => `<tr><th>not covered: ${escape(r)}</th><td data-reason="${escape(r)}">${n}</td></tr>`).join("\n")}
</table>
<h2>Failed companies (${failed.length})</h2>
<table id="failed"><thead><tr><th>ticker</th><th>what failed</th><th>documents stale since</th><th>kept from</th></tr></thead>
<tbody>
${failed.join("\n")}
</tbody></table>
<h2>Cross-company documents</h2>
${crossSection(manifest)}
<h2>Freshness of covered tickers' documents</h2>
<table id="freshness">${AGE_BUCKETS.map((b) => `<tr><th>${AGE_LABELS[b]}</th><td data-age="${b}">${ages[b]}</td><td><span class="bar" style="width:${Math.round((ages[b] / most) * 300)}px"></span></td></tr>`).join("\n")}
</table>
<h2>Tickers</h2>
<input id="search" type="search" placeholder="Filter by ticker, name, CIK or reason" autocomplete="off">
<table id="tickers"><thead><tr><th>ticker</th><th>name</th><th>CIK</th><th>coverage</th><th>filings</th><th>periods</th><th>insider rows</th><th>financials rows</th><th>newest filing</th><th>newest period end</th><th>newest Form 4</th><th>built</th></tr></thead>
<tbody>
${rows}
</tbody></table>
<script>
const search = document.getElementById("search");
const body = document.querySelector("#tickers tbody");
search.addEventListener("input", () => {
  const q = search.value.trim().toLowerCase();
  for (const row of body.rows) row.hidden = q !== "" && !row.textContent.toLowerCase().includes(q);
});
</script>
</body></html>
`;
}

/** The last full build's screens and market feeds (issue 40): the gateway lays the companies published since over them. */
function crossSection(manifest: Manifest): string {
  const cross = manifest.cross;
  if (!cross) return `<p id="cross">None yet: the next full build assembles them.</p>`;
  const frames = Object.keys(cross.screens).sort();
  const screens = frames.reduce((n, f) => n + Object.keys(cross.screens[f]!).length, 0);
  const rows = (days: Record<string, { rows: number }>) => Object.values(days).reduce((n, d) => n + d.rows, 0);
  return `<table id="cross">
<tr><th>built by</th><td><code>${escape(cross.build_id)}</code> at ${escape(cross.built_at)}</td></tr>
<tr><th>screens</th><td data-screens="${screens}">${screens} (${frames.length} frames, ${escape(frames[0] ?? "")} … ${escape(frames.at(-1) ?? "")})</td></tr>
<tr><th>market filings</th><td>${rows(cross.market_filings)} rows since ${escape(cross.filings_from)}</td></tr>
<tr><th>market Form 4 rows</th><td>${rows(cross.market_insiders)} rows since ${escape(cross.insiders_from)}</td></tr>
</table>`;
}

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
