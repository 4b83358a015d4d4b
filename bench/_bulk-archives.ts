// Makes a scaled pair of EDGAR bulk archives (submissions.zip, companyfacts.zip) plus company_tickers.json from
// the real files of the shared mirror, re-keyed under new CIKs; cached in the temp folder and reused.
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { padCik } from "../schemas/primitives.ts";
import { MIRROR } from "../test/_edgar-files.ts";
import { writeZip } from "../test/_bulk-zip.ts";

/**
 * Facts and filings keep only what was filed on or after this day: each company is a real one cut to its last
 * ~3 years (about 0.2 MB of JSON instead of 1–4 MB), so 10,000 of them stay within minutes and a few GB.
 */
export const FILED_SINCE = "2024-01-01";
/** First CIK of the re-keyed companies (real CIKs stay below it). */
const FIRST_CIK = 900_000_000;
/** Bump when the archives' contents change, so a stale cache is not reused. */
const VERSION = 2;

/** Where the archives for `companies` companies live, made now unless an earlier run left them complete. */
export async function bulkArchives(companies: number, root = tmpdir()): Promise<string> {
  const folder = join(root, `edgar-bulk-v${VERSION}-${companies}`);
  if (existsSync(join(folder, "COMPLETE"))) return folder;
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  const templates = loadTemplates();
  const company = (i: number) => ({ cik: FIRST_CIK + i, template: templates[i % templates.length]! });
  const indices = Array.from({ length: companies }, (_, i) => i);
  await writeZip(
    join(folder, "submissions.zip"),
    indices.map((i) => {
      const { cik, template } = company(i);
      return [`CIK${padCik(cik)}.json`, () => rekeySubmissions(template.submissions, template.cik, cik)];
    }),
    1,
  );
  await writeZip(
    join(folder, "companyfacts.zip"),
    indices.map((i) => {
      const { cik, template } = company(i);
      return [`CIK${padCik(cik)}.json`, () => `{"cik":${cik},${template.factsRest}`];
    }),
    1,
  );
  const tickers = Object.fromEntries(indices.map((i) => [String(i), { cik_str: company(i).cik, ticker: `X${i}`, title: `${company(i).template.name} #${i}` }]));
  writeFileSync(join(folder, "company_tickers.json"), JSON.stringify(tickers));
  writeFileSync(join(folder, "COMPLETE"), `${companies} companies from ${templates.length} real templates\n`);
  return folder;
}

interface Template {
  cik: number;
  name: string;
  submissions: string;
  /** The company facts text after its leading `{"cik":N,`, trimmed to FILED_SINCE. */
  factsRest: string;
}

/** Every company of the mirror with both a submissions file and company facts. */
function loadTemplates(): Template[] {
  const facts = new Set(MIRROR.list("api/xbrl/companyfacts"));
  const out: Template[] = [];
  for (const name of MIRROR.list("submissions")) {
    if (!facts.has(name) || name.includes("-submissions-")) continue;
    const parsed = JSON.parse(MIRROR.read(`api/xbrl/companyfacts/${name}`)) as FactsFile;
    trimFacts(parsed);
    const text = JSON.stringify(parsed);
    const head = `{"cik":${parsed.cik},`;
    if (!text.startsWith(head)) throw new Error(`api/xbrl/companyfacts/${name}: does not open with ${head}`);
    out.push({ cik: Number(parsed.cik), name: parsed.entityName ?? name, submissions: trimSubmissions(MIRROR.read(`submissions/${name}`), name), factsRest: text.slice(head.length) });
  }
  if (!out.length) throw new Error("no company of the shared mirror has both submissions and company facts");
  return out;
}

interface FactsFile {
  cik: number;
  entityName?: string;
  facts: Record<string, Record<string, { units: Record<string, { filed: string }[]> }>>;
}

/** Keeps the facts filed since FILED_SINCE (concepts and units left empty are dropped). */
function trimFacts(file: FactsFile): void {
  for (const taxonomy of Object.values(file.facts)) {
    for (const [concept, { units }] of Object.entries(taxonomy)) {
      for (const unit of Object.keys(units)) {
        units[unit] = units[unit]!.filter((f) => f.filed >= FILED_SINCE);
        if (!units[unit]!.length) delete units[unit];
      }
      if (!Object.keys(units).length) delete taxonomy[concept];
    }
  }
}

/** Keeps the recent filings filed since FILED_SINCE and no older pages (a young company has none). */
function trimSubmissions(text: string, name: string): string {
  const file = JSON.parse(text) as { cik: string; filings: { recent: Record<string, unknown[]>; files: unknown[] } };
  const keep = (file.filings.recent.filingDate ?? []).map((d) => (d as string) >= FILED_SINCE);
  if (!keep.length) throw new Error(`submissions/${name}: no recent.filingDate column`);
  for (const [column, values] of Object.entries(file.filings.recent)) file.filings.recent[column] = values.filter((_, i) => keep[i]);
  file.filings.files = [];
  return JSON.stringify(file);
}

/** The submissions text under another CIK: its own `cik` and the names of its older pages. */
function rekeySubmissions(text: string, from: number, to: number): string {
  const head = /^\{"cik":\s*"\d{10}"/;
  if (!head.test(text)) throw new Error(`submissions/CIK${padCik(from)}.json: does not open with its cik`);
  return text.replace(head, `{"cik":"${padCik(to)}"`).replaceAll(`CIK${padCik(from)}-submissions-`, `CIK${padCik(to)}-submissions-`);
}
