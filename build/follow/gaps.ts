// Filling a feed gap, twice over. At once from the submissions of the covered companies (a request each), which list a
// filing within a second of its acceptance, where EDGAR publishes a day's form index only that evening. Then from the
// daily form indexes, which name every filing of the day: of the companies not covered too (a first periodic report
// may make one covered), and any the submissions did not list yet when read. Weekends have none; a weekday whose index
// is still missing days later was a holiday.
import type { FeedGap } from "../../schemas/snapshot.ts";
import { parseDailyFormIndex, type DailyIndexRow } from "../parse/daily-index.ts";
import { parseSubmissions } from "../parse/submissions.ts";
import { dailyFormIndexPath, submissionsPath } from "../sources/paths.ts";
import { SourceNotFoundError, type Source } from "../sources/source.ts";
import type { FeedFiling } from "./feed.ts";

const DAY = 86_400_000;
/** A weekday whose index has not appeared this many days after it had no filings (a holiday). */
const HOLIDAY_AFTER_DAYS = 3;
const EASTERN = new Intl.DateTimeFormat("en-CA", { timeZone: "America/New_York", year: "numeric", month: "2-digit", day: "2-digit" });
const EASTERN_TIME = new Intl.DateTimeFormat("en-GB", { timeZone: "America/New_York", hour: "2-digit", minute: "2-digit", hourCycle: "h23" });

/** The US Eastern calendar date of an instant (EDGAR dates filings in its own time zone). */
export function easternDate(iso: string | number): string {
  return EASTERN.format(new Date(iso));
}

/**
 * The days whose index may list a filing accepted after `after` and before `before`: every weekday from the first's
 * US Eastern date (Forms 3, 4 and 5 are dated the day they are accepted until 22:00) to the day EDGAR dates what it
 * accepts at the second (from 17:30 US Eastern most forms are dated the next business day). A weekend has no index:
 * EDGAR dates what it accepts then the next weekday. So the gap names from the start only days an index can come for,
 * and a gap recorded on a Friday evening reads Friday and Monday, whenever it is looked at — also when it ends after
 * midnight, on the Saturday.
 */
export function gapOf(after: string, before: string): FeedGap {
  const last = filingDay(before);
  const days = [weekdayFrom(easternDate(after))];
  for (let day = nextDay(days[0]!); day <= last; day = nextDay(day)) if (!isWeekend(day)) days.push(day);
  return { after, before, days };
}

/** The day EDGAR dates most forms accepted at an instant: its US Eastern date, the next one from 17:30, a weekday. */
function filingDay(iso: string): string {
  const day = easternDate(iso);
  return weekdayFrom(easternTime(iso) >= "17:30" ? nextDay(day) : day);
}

/** The day itself when a weekday, else the Monday after it. */
function weekdayFrom(day: string): string {
  while (isWeekend(day)) day = nextDay(day);
  return day;
}

/** What a day's index said: its rows, or that it is not there yet, or that the day has none. */
export type DayIndex = { rows: DailyIndexRow[] } | "pending" | "none";

/** Reads one day's form index (EDGAR publishes it that evening); `today` is the current US Eastern date. */
export async function readDay(source: Source, day: string, today: string): Promise<DayIndex> {
  const path = dailyFormIndexPath(day);
  try {
    return { rows: parseDailyFormIndex(await source.getText(path), { path }) };
  } catch (error) {
    if (!(error instanceof SourceNotFoundError)) throw error;
    if (isWeekend(day) || Date.parse(today) - Date.parse(day) > HOLIDAY_AFTER_DAYS * DAY) return "none";
    return "pending";
  }
}

/** A day's index rows as filings (an index names a filing once per CIK), for the CIKs `wanted` keeps. */
export function indexFilings(rows: DailyIndexRow[], wanted: (cik: number) => boolean, seenAt: string): FeedFiling[] {
  const byAccession = new Map<string, FeedFiling>();
  for (const row of rows) {
    if (!wanted(row.cik)) continue;
    let filing = byAccession.get(row.accession);
    if (!filing) byAccession.set(row.accession, (filing = { accession: row.accession, form: row.form, filed_at: row.filed_at, accepted_at: null, parties: [], seen_at: seenAt }));
    if (!filing.parties.some((p) => p.cik === row.cik)) filing.parties.push({ cik: row.cik, role: "index" });
  }
  return [...byAccession.values()];
}

/**
 * The filings a company's submissions list as accepted in a gap: after its start, through the last second of its end
 * (the oldest entry the feed showed, in seconds: the feed may have cut that second in two).
 */
export async function submittedIn(source: Source, cik: number, gap: FeedGap, seenAt: string): Promise<FeedFiling[]> {
  const path = submissionsPath(cik);
  const end = new Date(Date.parse(gap.before) + 1000).toISOString();
  return parseSubmissions(await source.getText(path), { cik, path })
    .filings.filter((f) => f.accepted_at !== null && f.accepted_at > gap.after && f.accepted_at < end)
    .map((f) => ({ accession: f.accession_number, form: f.form, filed_at: f.filed_at, accepted_at: f.accepted_at, parties: [{ cik, role: "submissions" }], seen_at: seenAt }));
}

/** The US Eastern time of day of an instant, HH:MM. */
function easternTime(iso: string): string {
  return EASTERN_TIME.format(new Date(iso));
}

function nextDay(day: string): string {
  return new Date(Date.parse(`${day}T12:00:00Z`) + DAY).toISOString().slice(0, 10);
}

function isWeekend(day: string): boolean {
  const weekday = new Date(`${day}T12:00:00Z`).getUTCDay();
  return weekday === 0 || weekday === 6;
}
