// Every exception each real company's earnings carry, pinned: the invariants the filings leave no way to satisfy, each
// with the reason found in the filings. The builder marks every violation it cannot resolve (so "nothing unmarked"
// proves nothing); this list makes a new exception, or one lost, fail.
import { expect, it } from "vitest";
import type { EarningsPeriod } from "../../schemas/earnings.ts";
import { describeEdgar, listEdgar, readEdgar } from "../../test/_edgar.ts";
import { readCompanyFacts } from "./company-facts.ts";
import { METRIC_CONCEPTS } from "./concepts.ts";
import { deriveEarningsBase } from "./earnings.ts";
import { checkInvariants } from "./invariants.ts";

const FOLDER = "api/xbrl/companyfacts";

/** One marked exception: its rule, metric, the period's span, and what its message must say. */
type Pinned = [rule: string, metric: string | null, span: string, says: RegExp];
/** A fiscal year whose quarters do not add up to it: its span and each metric's difference (quarters − year). */
type Unreconciled = [span: string, differences: Record<string, number>];

/** A real change between neighbours, each side confirmed by another figure: marked, never corrected. */
const REAL = /a real change, not a unit-scale slip \(not corrected\)$/;
/** A period on another fiscal calendar: placed, not dropped. */
const PLACED = /is no quarter, year-to-date or year of fiscal \d{4} .*a comparative on another fiscal calendar/;

/**
 * SUNation's change of reporting entity (entity-change.ts): the 10-Q filed 2022-05-23 (0000022701-22-000009), Pineapple
 * Energy's first after its reverse merger into Communications Systems, gives the balance sheet at 2021-12-31 as
 * Pineapple's — total assets 2,799,236, cash 18,966, equity −8,636,894 — where Communications Systems' 10-K filed
 * 2022-03-14 (0000022701-22-000004) gave 20,074,008, 3,491,160 and 17,017,511 (company facts of both filings).
 */
const SUNATION_CHANGE =
  /^values from both sides of a change of reporting entity: 0000022701-22-000009 \(filed 2022-05-23\) gave the balance sheet at 2021-12-31 with total assets 20074008 → 2799236, cash 3491160 → 18966 and equity 17017511 → -8636894/;
/** The sides of a marked row: what each side's metrics are and which filings gave them. */
const sides = (before: string, after: string) => new RegExp(`; ${before} describe the entity before it, ${after} the entity after$`.replace(/[()]/g, "\\$&"));

const EXPECTED: Record<string, { exceptions: Pinned[]; unreconciled: Unreconciled[] }> = {
  // SUNation Energy (formerly Communications Systems, then Pineapple Energy). Share counts (basic and diluted alike) and
  // EPS: the 10-Qs and 10-Ks of 2024–2026 restate earlier periods for reverse splits (fiscal 2024 diluted shares 542,454
  // in the 10-K filed 2025-04-15, 2,714 in the one filed 2026-03-23), so neighbouring periods last reported before and
  // after a split sit a thousandfold apart; each agrees with its own filing's net income ÷ EPS (2025: −10,892,833 ÷ −4.38 ≈ 2,486,948
  // against 2,489,224). Revenue: after the March 2022 merger the 10-K filed 2023-04-14 (0000022701-23-000008) gives 2021
  // as the accounting acquirer Pineapple's, 38,162, which the 10-Q filed 2022-11-14 (0000022701-22-000015) confirms
  // (25,417 for the nine months): a real change, not a slip (it was marked as one of unclear scale before).
  "CIK0000022701.json": {
    exceptions: [
      ["scale", "basic_shares", "2025-01-01..2025-12-31", REAL],
      ["scale", "diluted_shares", "2025-01-01..2025-12-31", REAL],
      ["scale", "basic_shares", "2024-01-01..2024-12-31", REAL],
      ["scale", "diluted_shares", "2024-01-01..2024-12-31", REAL],
      ["scale", "basic_shares", "2024-01-01..2024-06-30", REAL],
      ["scale", "diluted_shares", "2024-01-01..2024-06-30", REAL],
      ["scale", "basic_shares", "2023-01-01..2023-12-31", REAL],
      ["scale", "diluted_shares", "2023-01-01..2023-12-31", REAL],
      ["scale", "eps_basic", "2023-01-01..2023-09-30", REAL],
      ["scale", "eps_diluted", "2023-01-01..2023-09-30", REAL],
      ["scale", "basic_shares", "2023-01-01..2023-06-30", REAL],
      ["scale", "diluted_shares", "2023-01-01..2023-06-30", REAL],
      ["scale", "revenue", "2022-01-01..2022-12-31", REAL],
      ["scale", "basic_shares", "2022-01-01..2022-12-31", REAL],
      ["scale", "diluted_shares", "2022-01-01..2022-12-31", REAL],
      ["scale", "eps_basic", "2022-01-01..2022-09-30", REAL],
      ["scale", "eps_diluted", "2022-01-01..2022-09-30", REAL],
      ["scale", "revenue", "2021-01-01..2021-12-31", /2021-01-01\.\.2021-12-31 agrees with revenue 25417 for 2021-01-01\.\.2021-09-30 \(0000022701-22-000015\).*a real change/],
      // 2021's first half: revenue and gross profit as Communications Systems filed them (never restated), the rest
      // restated for Pineapple by the 10-Qs of 2022 (0000022701-22-000009 for the first quarter, -000012 the second).
      ["one_entity", null, "2021-04-01..2021-06-30", SUNATION_CHANGE],
      ["one_entity", null, "2021-01-01..2021-06-30", sides("revenue, gross_profit (0000022701-21-000005)", "net_income, operating_income, eps_basic, eps_diluted, basic_shares, diluted_shares (0000022701-22-000012)")],
      ["one_entity", null, "2021-01-01..2021-03-31", sides("revenue, gross_profit (0000897101-21-000381)", "net_income, operating_income, eps_basic, eps_diluted, basic_shares, diluted_shares (0000022701-22-000009)")],
    ],
    unreconciled: [
      // 2021 as restated for Pineapple (10-K 0000022701-23-000008; third quarter by 10-Q 0000022701-22-000015); the
      // first two quarters stay Communications Systems' (10,159,315 + 10,996,802 = 21,156,117), never restated.
      ["2021-01-01..2021-12-31", { revenue: 21_156_117, gross_profit: 8_824_193 }],
      // 2020 restated for discontinued operations by the 10-K filed 2022-03-14 (revenues 8,079,562) and the 10-Q filed
      // 2021-11-15 (third quarter, nine months); its first two quarters never were.
      ["2020-01-01..2020-12-31", { revenue: 16_823_317, operating_income: 209_299, gross_profit: 6_824_704 }],
      // 10-K/A filed 2020-03-17 restated 2018 gross profit (21,307,249 → 17,622,117) and no quarter.
      ["2018-01-01..2018-12-31", { gross_profit: 3_685_132 }],
    ],
  },
  // McDonald's: the 10-K filed 2021-02-23 (0000063908-21-000013) restated 2018 revenues (21,025.2 → 21,257.9 million)
  // and no filing its quarters. (2019, restated with its quarters by the 2020 10-Qs, now adds up: earnings.test.ts.)
  "CIK0000063908.json": { exceptions: [], unreconciled: [["2018-01-01..2018-12-31", { revenue: -232_700_000 }]] },
  // Texas Instruments: the 10-K filed 2018-02-22 restated 2015 operating income (4,274 → 4,322) and gross profit, no quarter.
  "CIK0000097476.json": { exceptions: [], unreconciled: [["2015-01-01..2015-12-31", { operating_income: -48_000_000, gross_profit: -15_000_000 }]] },
  "CIK0000104169.json": {
    exceptions: [],
    unreconciled: [
      // Fiscal 2013: the 10-Q filed 2013-12-06 restated the third quarter and nine months, the 10-K filed 2014-03-21 the
      // year (27,725); the first two quarters were never restated (6,387 + 6,698 + 6,093 + 8,580 = 27,758).
      ["2012-02-01..2013-01-31", { operating_income: 33_000_000 }],
      // Fiscal 2012: the 10-K filed 2014-03-21 restated the year (revenues 446,950 → 446,509) and no quarter.
      ["2011-02-01..2012-01-31", { revenue: 441_000_000, operating_income: 67_000_000 }],
      // Fiscal 2010: the 10-Q filed 2010-09-01 restated the half and second quarter (operating income 11,102 and 5,929),
      // never the first (5,217 as filed 2010-06-04; the half implies 5,173).
      ["2009-02-01..2010-01-31", { revenue: 28_000_000, operating_income: 44_000_000 }],
    ],
  },
  "CIK0000320193.json": { exceptions: [], unreconciled: [] },
  // Home Depot: the 10-K filed 2016-03-24 restated fiscal 2013 gross profit (27,390 → 26,915) and no quarter.
  "CIK0000354950.json": { exceptions: [], unreconciled: [["2013-02-04..2014-02-02", { gross_profit: 475_000_000 }]] },
  "CIK0000865941.json": { exceptions: [], unreconciled: [] },
  // SunEdison: its 2015 10-Qs restated 2014's quarters (revenue: first quarter 546.5 → 340.0 million, nine months
  // 1,873.9 → 1,241.0) and no 10-K for 2015 followed to restate the year (2,484.4): marked, the fourth quarter left of
  // the year's own vintage (2,484.4 − 1,873.9 = 610.5), never the old year less the new nine months.
  "CIK0000945436.json": {
    exceptions: [],
    unreconciled: [["2014-01-01..2014-12-31", { revenue: -633_900_000, operating_income: 77_600_000, gross_profit: -56_900_000 }]],
  },
  "CIK0001046179.json": { exceptions: [], unreconciled: [] },
  "CIK0001336917.json": {
    exceptions: [
      // 10-Qs filed 2022-11-08 and 2023-02-08 compare with April–September and April–December 2021 (the April–March
      // calendar from 2022), which are no year-to-date of calendar 2021.
      ["label_in_year", null, "2021-04-01..2021-12-31", PLACED],
      ["label_in_year", null, "2021-04-01..2021-09-30", PLACED],
    ],
    unreconciled: [
      // 10-K filed 2024-05-29 (0001336917-24-000073) restated 2021 (net income 360,060 → 351,003) and no quarter.
      ["2021-01-01..2021-12-31", { revenue: 874_000, net_income: 9_057_000, operating_income: 11_042_000, gross_profit: 874_000 }],
      // 10-K filed 2019-02-25 restated 2016 gross profit (2,240,611 → 2,248,614) and no quarter.
      ["2016-01-01..2016-12-31", { gross_profit: -8_003_000 }],
    ],
  },
  "CIK0001640147.json": { exceptions: [], unreconciled: [] },
  // Alphabet: the 10-K filed 2020-02-04 restated 2017 operating income (26,146 → 26,178) and no quarter.
  "CIK0001652044.json": { exceptions: [], unreconciled: [["2017-01-01..2017-12-31", { operating_income: -32_000_000 }]] },
  "CIK0001657853.json": { exceptions: [], unreconciled: [] },
  "CIK0001744489.json": { exceptions: [], unreconciled: [] },
  "CIK0001835632.json": { exceptions: [], unreconciled: [] },
};

describeEdgar("every company's marked exceptions, pinned with their reasons", () => {
  it("lists every company facts file of the fixtures", () => {
    expect(listEdgar(FOLDER).sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  it.each(Object.keys(EXPECTED))("%s: exactly the exceptions the filings explain, and no violation unmarked", (file) => {
    const { periods } = deriveEarningsBase(readCompanyFacts(readEdgar(`${FOLDER}/${file}`))).series;
    const span = (p: EarningsPeriod) => `${p.period_start}..${p.period_end}`;
    const expected = EXPECTED[file]!;
    const found = periods.flatMap((p) => p.exceptions.map((e) => ({ rule: e.rule, metric: e.metric, span: span(p), message: e.message })));
    expect(found.map((e) => [e.rule, e.metric, e.span])).toEqual(expected.exceptions.map(([rule, metric, at]) => [rule, metric, at]));
    found.forEach((e, i) => expect(e.message).toMatch(expected.exceptions[i]![3]));
    const unreconciled = periods
      .filter((p) => p.reconciled === false)
      .map((p) => [span(p), Object.fromEntries(p.reconciliation.map((r) => [r.metric, r.difference]))]);
    expect(unreconciled).toEqual(expected.unreconciled);
    expect(checkInvariants(periods, METRIC_CONCEPTS).filter((v) => !v.marked)).toEqual([]);
  });
});
