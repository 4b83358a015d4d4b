// A loopback EDGAR that accepts real filings while a test or benchmark runs: the real files of a mirror folder, with
// chosen filings of its companies held back — absent from their submissions and company facts, their documents 404
// — until `accept` makes each one public at once, as EDGAR does: listed in the latest-filings feed (in the format of
// the captured feed, test/fixtures/edgar/cgi-bin/browse-edgar/getcurrent.atom), in the company's submissions and
// company facts, its documents served (the two JSON files may lag it, as EDGAR's do). A daily form index is made for
// any day from the filings accepted on it, and served once the test says EDGAR has published it. Faults and the
// request log are the loopback mirror's.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { accessionOfFolder } from "./_edgar-files.ts";
import { startMirror, type Mirror } from "./_mirror.ts";

/** A filing the replay can hold back and accept: from a company's real submissions. */
export interface ReplayFiling {
  accession: string;
  cik: number;
  company: string;
  form: string;
  filed_at: string;
  /** The entities the feed names: the company, and for Forms 3/4/5 the reporting owners its XML names. */
  parties: { cik: number; name: string; role: string }[];
  size: number;
}

export interface EdgarReplay extends Mirror {
  /** Filings still held back, oldest first. */
  held(): ReplayFiling[];
  /** Makes a held filing public now (or at `at`); returns it. */
  accept(accession: string, at?: Date): ReplayFiling;
  /** Accepted filings and when. */
  accepted: Map<string, Date>;
  /** A held or accepted filing. */
  filing(accession: string): ReplayFiling;
  /** The most entries the feed lists (EDGAR's feed is finite too); older ones are no longer listed. */
  setFeedDepth(entries: number): void;
  /** Accepted filings show in the submissions this long after their acceptance (from now on, accepted before or not). */
  setSubmissionsDelay(ms: number): void;
  /**
   * …and in the company facts this long after it, never before the submissions: SEC says the XBRL APIs lag the
   * submissions by up to a minute, more at peak.
   */
  setFactsDelay(ms: number): void;
  /** Says EDGAR has published the daily index of `day` (YYYY-MM-DD, US Eastern): it lists the filings dated that day. */
  publishIndex(day: string): void;
  /** The day an accepted filing is dated, and listed in that day's index (filingDay). */
  indexDay(accession: string): string;
}

/**
 * Starts the replay over `root`, holding back the newest `hold` filings (by acceptance, all forms) of the companies
 * `ciks`, and the filings `also` names; `held()` gives them in their order of acceptance.
 */
export async function startReplay(root: string, ciks: number[], hold: number, also: string[] = []): Promise<EdgarReplay> {
  const companies = new Map(ciks.map((cik) => [cik, readSubmissions(root, cik)]));
  const all = [...companies.values()].flatMap((c) => c.filings).sort((a, b) => (a.acceptance < b.acceptance ? 1 : -1));
  const chosen = all.filter((f, i) => i < hold || also.includes(f.filing.accession)).reverse();
  const heldBack = new Map(chosen.map((f) => [f.filing.accession, f.filing]));
  const order = chosen.map((f) => f.filing);
  const earlier = all.filter((f) => !heldBack.has(f.filing.accession)).slice(0, 1_000).map((f) => ({ filing: f.filing, at: new Date(f.acceptance) }));
  const accepted = new Map<string, Date>();
  const published = new Set<string>();
  let depth = 400;
  const lag = { submissions: 0, facts: 0 };
  const facts = new Map<number, { version: string; body: Buffer }>();

  const isHidden = (accession: string) => heldBack.has(accession) && !accepted.has(accession);
  /** Held back, or accepted less than `ms` ago. */
  const hiddenFor = (ms: number) => (accession: string) => isHidden(accession) || (accepted.get(accession)?.getTime() ?? 0) + ms > Date.now();

  const mirror = await startMirror(root, async (path, url) => {
    if (path === "cgi-bin/browse-edgar") return feed(url);
    const submissions = /^submissions\/CIK(\d{10})\.json$/.exec(path);
    if (submissions && companies.has(Number(submissions[1]))) return submissionsJson(Number(submissions[1]));
    const companyFacts = /^api\/xbrl\/companyfacts\/CIK(\d{10})\.json$/.exec(path);
    if (companyFacts && companies.has(Number(companyFacts[1]))) return factsJson(Number(companyFacts[1]));
    const archive = /^Archives\/edgar\/data\/\d+\/(?:(\d{18})\/|(\d{10}-\d{2}-\d{6})\.txt$)/.exec(path);
    if (archive) {
      const accession = archive[2] ?? accessionOfFolder(archive[1]!);
      return isHidden(accession) ? null : undefined;
    }
    const index = /^Archives\/edgar\/daily-index\/\d{4}\/QTR\d\/form\.(\d{4})(\d{2})(\d{2})\.idx$/.exec(path);
    if (index) {
      const day = `${index[1]}-${index[2]}-${index[3]}`;
      return published.has(day) ? Buffer.from(dailyIndex(day)) : undefined;
    }
    return undefined;
  });

  function feed(url: URL): Buffer {
    const type = url.searchParams.get("type") ?? "";
    const start = Number(url.searchParams.get("start") ?? 0);
    // EDGAR serves 10, 20, 40, 80 or 100 entries a page; other counts round down (40 when absent).
    const asked = Number(url.searchParams.get("count") ?? 40);
    const count = [100, 80, 40, 20, 10].find((n) => n <= asked) ?? 10;
    // The filings accepted now, then the companies' earlier filings at their real acceptance times: a feed that
    // reaches back, as EDGAR's does (up to its depth).
    const entries = [...[...accepted].map(([accession, at]) => ({ filing: heldBack.get(accession)!, at })), ...earlier]
      .filter((e) => type === "" || e.filing.form === type || e.filing.form === `${type}/A`)
      .sort((a, b) => b.at.getTime() - a.at.getTime())
      .flatMap((e) => e.filing.parties.map((p) => entry(e.filing, p, e.at)))
      .slice(0, depth)
      .slice(start, start + count);
    const now = eastern(new Date());
    return Buffer.from(
      `<?xml version="1.0" encoding="ISO-8859-1" ?>\n<feed xmlns="http://www.w3.org/2005/Atom">\n<title>Latest Filings</title>\n` +
        `<link rel="alternate" href="/cgi-bin/browse-edgar?action=getcurrent"/>\n<link rel="self" href="/cgi-bin/browse-edgar?action=getcurrent"/>\n` +
        `<id>https://www.sec.gov/cgi-bin/browse-edgar?action=getcurrent</id>\n<author><name>Webmaster</name><email>webmaster@sec.gov</email></author>\n` +
        `<updated>${now}</updated>\n${entries.join("")}</feed>\n`,
      "latin1",
    );
  }

  function entry(filing: ReplayFiling, party: ReplayFiling["parties"][number], at: Date): string {
    const folder = filing.accession.replace(/-/g, "");
    const filed = accepted.has(filing.accession) ? filingDay(at) : filing.filed_at;
    const summary = `&lt;b&gt;Filed:&lt;/b&gt; ${filed} &lt;b&gt;AccNo:&lt;/b&gt; ${filing.accession} &lt;b&gt;Size:&lt;/b&gt; ${Math.max(1, Math.round(filing.size / 1024))} KB`;
    return (
      `<entry>\n<title>${filing.form} - ${xml(party.name)} (${String(party.cik).padStart(10, "0")}) (${party.role})</title>\n` +
      `<link rel="alternate" type="text/html" href="https://www.sec.gov/Archives/edgar/data/${party.cik}/${folder}/${filing.accession}-index.htm"/>\n` +
      `<summary type="html">\n ${summary}\n</summary>\n<updated>${eastern(at)}</updated>\n` +
      `<category scheme="https://www.sec.gov/" label="form type" term="${xml(filing.form)}"/>\n` +
      `<id>urn:tag:sec.gov,2008:accession-number=${filing.accession}</id>\n</entry>\n`
    );
  }

  function submissionsJson(cik: number): Buffer {
    const file = JSON.parse(companies.get(cik)!.text) as { filings: { recent: Record<string, unknown[]> } };
    const recent = file.filings.recent;
    const hidden = hiddenFor(lag.submissions);
    const keep = (recent.accessionNumber as string[]).map((a) => !hidden(a));
    // An accepted filing was accepted when the replay accepted it, as the feed says (EDGAR gives seconds), and is
    // dated the day EDGAR dates what it accepts then.
    recent.acceptanceDateTime = (recent.acceptanceDateTime as string[]).map((at, i) => {
      const when = accepted.get(recent.accessionNumber![i] as string);
      return when ? new Date(Math.floor(when.getTime() / 1000) * 1000).toISOString() : at;
    });
    recent.filingDate = (recent.filingDate as string[]).map((day, i) => {
      const when = accepted.get(recent.accessionNumber![i] as string);
      return when ? filingDay(when) : day;
    });
    file.filings.recent = Object.fromEntries(Object.entries(recent).map(([column, rows]) => [column, rows.filter((_, i) => keep[i])]));
    return Buffer.from(JSON.stringify(file));
  }

  function factsJson(cik: number): Buffer | undefined {
    const path = join(root, "api/xbrl/companyfacts", `CIK${String(cik).padStart(10, "0")}.json`);
    if (!existsSync(path)) return undefined;
    const hidden = [...heldBack.keys()].filter(hiddenFor(Math.max(lag.submissions, lag.facts))).sort();
    const version = hidden.join(",");
    const cached = facts.get(cik);
    if (cached?.version === version) return cached.body;
    const file = JSON.parse(readFileSync(path, "utf8")) as { facts: Record<string, Record<string, { units: Record<string, { accn: string }[]> }>> };
    const gone = new Set(hidden);
    for (const concepts of Object.values(file.facts)) {
      for (const concept of Object.values(concepts)) {
        for (const [unit, values] of Object.entries(concept.units ?? {})) concept.units[unit] = values.filter((v) => !gone.has(v.accn));
      }
    }
    const body = Buffer.from(JSON.stringify(file));
    facts.set(cik, { version, body });
    return body;
  }

  function dailyIndex(day: string): string {
    const header =
      "Description:           Daily Index of EDGAR Dissemination Feed by Form Type\nLast Data Received:    (replay)\n" +
      "Comments:              webmaster@sec.gov\nAnonymous FTP:         ftp://ftp.sec.gov/edgar/\n \n \n \n \n" +
      `${"Form Type".padEnd(12)}${"Company Name".padEnd(62)}${"CIK".padEnd(12)}${"Date Filed".padEnd(12)}File Name\n${"-".repeat(141)}\n`;
    const rows = [...accepted]
      .filter(([, at]) => filingDay(at) === day)
      .flatMap(([accession]) => {
        const f = heldBack.get(accession)!;
        return f.parties.map((p) => `${f.form.padEnd(12)}${p.name.slice(0, 60).padEnd(62)}${String(p.cik).padEnd(12)}${day.replace(/-/g, "").padEnd(12)}edgar/data/${p.cik}/${f.accession}.txt\n`);
      });
    return header + rows.sort().join("");
  }

  return {
    ...mirror,
    held: () => order.filter((f) => !accepted.has(f.accession)),
    accepted,
    filing(accession) {
      const filing = heldBack.get(accession);
      if (!filing) throw new Error(`${accession} is not one of the replay's filings`);
      return filing;
    },
    accept(accession, at = new Date()) {
      const filing = heldBack.get(accession);
      if (!filing) throw new Error(`${accession} is not held back`);
      accepted.set(accession, at);
      return filing;
    },
    setFeedDepth: (entries) => void (depth = entries),
    setSubmissionsDelay: (ms) => void (lag.submissions = ms),
    setFactsDelay: (ms) => void (lag.facts = ms),
    publishIndex: (day) => void published.add(day),
    indexDay: (accession) => filingDay(accepted.get(accession)!),
  };
}

interface Company {
  text: string;
  filings: { filing: ReplayFiling; acceptance: string }[];
}

/** A company's real submissions and its filings as the replay names them. */
function readSubmissions(root: string, cik: number): Company {
  const text = readFileSync(join(root, "submissions", `CIK${String(cik).padStart(10, "0")}.json`), "utf8");
  const file = JSON.parse(text) as { name: string; filings: { recent: Record<string, (string | number)[]> } };
  const r = file.filings.recent;
  const filings = (r.accessionNumber as string[]).map((accession, i) => {
    const form = String(r.form![i]);
    const parties = [{ cik, name: file.name, role: /^[345](\/A)?$/.test(form) ? "Issuer" : "Filer" }];
    if (parties[0]!.role === "Issuer") parties.push(...owners(root, cik, accession));
    return { filing: { accession, cik, company: file.name, form, filed_at: String(r.filingDate![i]), parties, size: Number(r.size![i] ?? 0) }, acceptance: String(r.acceptanceDateTime![i]) };
  });
  return { text, filings };
}

/** The reporting owners an ownership XML of the folder names (none when the folder does not hold it). */
function owners(root: string, cik: number, accession: string): ReplayFiling["parties"] {
  const folder = join(root, "Archives/edgar/data", String(cik), accession.replace(/-/g, ""));
  if (!existsSync(folder)) return [];
  const xmlFile = readdirSync(folder).find((f) => f.endsWith(".xml"));
  if (!xmlFile) return [];
  const text = readFileSync(join(folder, xmlFile), "utf8");
  return [...text.matchAll(/<rptOwnerCik>\s*(\d+)\s*<\/rptOwnerCik>\s*<rptOwnerName>\s*([^<]+?)\s*<\/rptOwnerName>/g)].map((m) => ({ cik: Number(m[1]), name: m[2]!, role: "Reporting" }));
}

/** An instant as EDGAR's feed writes it: US Eastern time with its offset (2026-06-10T21:57:38-04:00). */
/**
 * The day EDGAR dates, and indexes, a filing accepted at `at`: its US Eastern date, or the next business day when
 * accepted from 17:30 on or on a weekend (holidays are not modelled).
 */
function filingDay(at: Date): string {
  const local = eastern(at);
  let day = local.slice(0, 10);
  const next = () => (day = new Date(Date.parse(`${day}T12:00:00Z`) + 86_400_000).toISOString().slice(0, 10));
  if (local.slice(11, 16) >= "17:30") next();
  while ([0, 6].includes(new Date(`${day}T12:00:00Z`).getUTCDay())) next();
  return day;
}

function eastern(at: Date): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-US", { timeZone: "America/New_York", hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit", timeZoneName: "longOffset" })
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  const offset = parts.timeZoneName === "GMT" ? "+00:00" : parts.timeZoneName!.slice(3);
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${offset}`;
}

function xml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}
