// Generated companies (fast-check) for the statements: any fiscal calendar, cash flows filed as 10-Qs file them (year
// to date, with last year's comparatives), balance sheets at each quarter end with the last year-end beside them,
// facts in any order, a filing that states its capital expenditure negative, a year restated without its quarters.
// Discrete quarters, year-end balances and TTM (weighted shares and EPS too) must come out as the model company's,
// every invariant must hold. And a reverse merger: from one filing on, earlier years are another company's.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LATEST } from "../../schemas/earnings-history.ts";
import { financialAsOf, financialsContext } from "../../schemas/financials-history.ts";
import { calendars, modelYears, mulberry, only, shuffle, sum, tenKFiled, type Calendar, type ModelYear } from "../../test/_model-company.ts";
import { type EdgarFact as Fact } from "../parse/companyfacts.ts";
import { readCompanyFacts } from "./company-facts.ts";
import { deriveEarningsBase } from "./earnings.ts";
import { entityChanges } from "./entity-change.ts";
import { checkFinancials } from "./financial-invariants.ts";
import { addDays, durationDays } from "./periods.ts";
import { deriveFinancials } from "./statements.ts";

/** A model year's statements: its quarters' flows and its quarter-end balances (thousands, so no rounding). */
interface Statements {
  ocf: number[];
  capex: number[];
  assets: number[];
  cash: number[];
  equity: number[];
}

interface Disturb {
  seed: number;
  /** A filing whose capital expenditure is stated negative. */
  negative: number | null;
  /** A fiscal year (index) whose operating cash flow the next 10-K restates, without its quarters. */
  restated: number | null;
  /**
   * A reverse merger: from this filing (index) on, every period of a fiscal year before the filing's own is reported
   * as the accounting acquirer's (other figures altogether); the company's own years go on as before.
   */
  merger: number | null;
}

/** Generated companies: a calendar, what `disturbed` draws for it, and the draws of the model's values and flows. */
const generated = (disturbed: (calendar: Calendar) => fc.Arbitrary<Disturb>) =>
  calendars.chain((calendar) =>
    fc.tuple(
      fc.constant(calendar),
      disturbed(calendar),
      fc.array(fc.integer({ min: 50, max: 900 }), { minLength: 48, maxLength: 48 }),
      fc.array(fc.integer({ min: -300, max: 900 }), { minLength: 72, maxLength: 72 }),
    ),
  );

const companies = generated((calendar) =>
  fc.record({
    seed: fc.integer(),
    negative: fc.option(fc.integer({ min: 0, max: calendar.years * 4 - 1 }), { nil: null }),
    restated: fc.option(fc.integer({ min: 0, max: calendar.years - 2 }), { nil: null }),
    merger: fc.constant(null),
  }),
);

/**
 * One model company with its inputs (the calendar, the draws, the disturbances): its years, statements and the
 * company facts read as the builder reads them.
 */
function modelOf([calendar, disturb, draws, flows]: [Calendar, Disturb, number[], number[]]) {
  const model = modelYears(calendar, draws);
  const statements = model.map((_, k) => statementsOf(flows.slice(k * 12, k * 12 + 12)));
  return { model, statements, facts: readCompanyFacts(JSON.stringify(companyFacts(model, statements, disturb))) };
}

describe("generated companies' statements", () => {
  it("come out as the model: discrete quarters, year-end balances, TTM, marks, every invariant", () => {
    fc.assert(
      fc.property(companies, (drawn) => {
        const [, disturb] = drawn;
        const { model, statements, facts } = modelOf(drawn);
        const { periods, history } = deriveFinancials(facts, deriveEarningsBase(facts));
        expect(checkFinancials(periods).filter((v) => !v.marked)).toEqual([]);
        periods.forEach((p, i) => expect(financialAsOf(p, history[i]!, LATEST, false)).toEqual(p));
        // The filing that stated capex negative: served positive, its entries marked as a flipped sign.
        // One company throughout: no change of reporting entity, no period marked as two companies'.
        expect(entityChanges(facts)).toEqual([]);
        expect(periods.filter((p) => p.exceptions.some((e) => e.rule === "one_entity"))).toEqual([]);
        const flipped = history.flatMap((h) => h.metrics.capital_expenditure ?? []).filter((e) => e.scale_corrected?.factor === -1);
        expect(flipped.length > 0).toBe(disturb.negative !== null);
        const row = (end: string, months: number, ttm = false) => only(periods, (p) => p.period_end === end && p.months === months && (p.ttm !== null) === ttm);
        model.forEach((year, k) => {
          const s = statements[k]!;
          const restated = disturb.restated === k;
          const fy = row(year.ends[3], 12);
          expect(fy.cash_flow!.operating_cash_flow!.value).toBe(sum(s.ocf) + (restated ? RESTATEMENT : 0));
          expect(fy.cash_flow!.capital_expenditure).toMatchObject({ value: sum(s.capex), restated: false });
          expect(fy.reconciled).toBe(!restated);
          year.ends.forEach((end, q) => {
            const quarter = row(end, 3);
            expect(quarter).toMatchObject({ fiscal_year: year.label, fiscal_quarter: `Q${q + 1}` });
            // A restated year's Q4 stays the year − nine months of one vintage: the original year's (issue 14's rule;
            // nothing restated its nine months), so the year is marked instead of its fourth quarter absorbing the change.
            expect(quarter.cash_flow!.operating_cash_flow).toMatchObject({ value: s.ocf[q], derived: q > 0 });
            expect(quarter.cash_flow!.capital_expenditure).toMatchObject({ value: s.capex[q], derived: q > 0 });
            expect(quarter.cash_flow!.free_cash_flow!.value).toBe(quarter.cash_flow!.operating_cash_flow!.value - s.capex[q]!);
            expect(quarter.balance!.total_assets!.value).toBe(s.assets[q]);
            // A year to date ending with the quarter carries no balance: the quarter's is that date's.
            if (q === 1 || q === 2) expect(row(end, (q + 1) * 3).balance).toBeNull();
          });
          expect(fy.balance).toEqual(row(year.ends[3], 3).balance);
        });
        // TTM: the year at its end; elsewhere the four quarters — null where one lies in a year that does not add up.
        const quarters = model.flatMap((year, k) => year.ends.map((end, q) => ({ end, k, q })));
        quarters.forEach(({ end, k, q }, i) => {
          const ttm = periods.find((p) => p.ttm && p.period_end === end);
          if (q === 3) {
            expect(ttm!.ttm!.basis).toBe("fiscal_year");
            expect(ttm!.cash_flow!.capital_expenditure!.value).toBe(sum(statements[k]!.capex));
            return;
          }
          if (i < 3) return;
          const four = quarters.slice(i - 3, i + 1);
          expect(ttm!.ttm!.periods.map((p) => p.period_end)).toEqual(four.map((f) => f.end));
          expect(ttm!.cash_flow!.capital_expenditure!.value).toBe(sum(four.map((f) => statements[f.k]!.capex[f.q]!)));
          const touched = four.some((f) => f.k === disturb.restated);
          if (touched) expect(ttm!.ttm!.unavailable).toContainEqual(expect.objectContaining({ metric: "operating_cash_flow", reason: "unreconciled" }));
          else expect(ttm!.cash_flow!.operating_cash_flow!.value).toBe(sum(four.map((f) => statements[f.k]!.ocf[f.q]!)));
          // Weighted shares over the twelve months: each year's count for the days of it the twelve months hold (the
          // model's counts are one per year); EPS = the four quarters' net income ÷ those shares, to the cent.
          const [before, now] = [model[k - 1]!, model[k]!];
          const [priorDays, nowDays] = [durationDays(before.start, before.ends[3]) - durationDays(before.start, before.ends[q]!), durationDays(now.start, end)];
          const income = sum(four.map((f) => model[f.k]!.income[f.q]!));
          for (const [shares, eps, count] of [["basic_shares", "eps_basic", "basic"], ["diluted_shares", "eps_diluted", "shares"]] as const) {
            const weighted = Math.round((before[count] * priorDays + now[count] * nowDays) / (priorDays + nowDays));
            expect(ttm!.income![shares]).toMatchObject({ value: weighted, derived: true });
            expect(ttm!.income![eps]).toMatchObject({ value: Math.round((income / weighted) * 100) / 100, derived: true });
          }
        });
      }),
      { numRuns: 60 },
    );
  });
});

const mergers = generated((calendar) =>
  fc.record({ seed: fc.integer(), negative: fc.constant(null), restated: fc.constant(null), merger: fc.integer({ min: 4, max: calendar.years * 4 - 1 }) }),
);

describe("generated companies after a reverse merger", () => {
  it("the change is found at its filing; periods of two companies are marked, as of their dates; no TTM sums across it", () => {
    fc.assert(
      fc.property(mergers, (drawn) => {
        const [, disturb] = drawn;
        const { model, facts } = modelOf(drawn);
        // The merger's filing gives the last year end as the acquirer's: every line another company's.
        const changes = entityChanges(facts);
        expect(changes.map((c) => [c.accession, c.date])).toEqual([[accession(disturb.merger!), model[(disturb.merger! >> 2) - 1]!.ends[3]]]);
        const base = deriveEarningsBase(facts);
        const { periods, history } = deriveFinancials(facts, base);
        expect(checkFinancials(periods).filter((v) => !v.marked)).toEqual([]);
        const after = (filed: string) => filed >= changes[0]!.filed_at;
        const sides = (metrics: readonly ({ filed_at: string } | null | undefined)[]) => new Set(metrics.filter((m) => !!m).map((m) => after(m.filed_at)));
        const marked = (p: { exceptions: readonly { rule: string }[] }) => p.exceptions.some((e) => e.rule === "one_entity");
        // A period is marked exactly when its values come from filings on both sides of the change.
        for (const p of base.series.periods) expect(marked(p)).toBe(sides(Object.values(p.metrics)).size === 2);
        for (const p of periods) if (!p.ttm) expect(marked(p)).toBe(sides([...Object.values(p.income ?? {}), ...Object.values(p.balance ?? {}), ...Object.values(p.cash_flow ?? {})]).size === 2);
        // A TTM sums no flow whose quarters' values lie on both sides of it.
        const quarter = (end: string) => only(periods, (p) => p.period_end === end && p.months === 3 && !p.ttm);
        for (const p of periods) {
          if (p.ttm?.basis !== "four_quarters") continue;
          for (const name of ["revenue", "net_income", "operating_cash_flow", "capital_expenditure"] as const) {
            const value = p.income?.[name as "revenue"] ?? p.cash_flow?.[name as "operating_cash_flow"];
            const parts = p.ttm.periods.map((q) => quarter(q.period_end)).map((q) => q.income?.[name as "revenue"] ?? q.cash_flow?.[name as "operating_cash_flow"]);
            if (value) expect(sides(parts).size, `${name} TTM to ${p.period_end}`).toBe(1);
            // Four quarters, each with a value, on both sides: withheld for that reason (fewer have reasons of their own).
            else if (parts.length === 4 && parts.every((q) => q) && sides(parts).size === 2) {
              expect(p.ttm.unavailable).toContainEqual(expect.objectContaining({ metric: name, reason: "entity_change" }));
            }
          }
        }
        // The day before the merger's filing nothing was known of it: no mark, no TTM withheld for it.
        const context = financialsContext(periods, history);
        const before = addDays(changes[0]!.filed_at, -1);
        periods.forEach((p, i) => {
          const then = financialAsOf(p, history[i]!, before, false, context);
          if (!then) return;
          expect(marked(then)).toBe(false);
          expect(then.ttm?.unavailable.some((u) => u.reason === "entity_change") ?? false).toBe(false);
        });
      }),
      { numRuns: 40 },
    );
  });
});

/** The amount the restating 10-K adds to a year's operating cash flow. */
const RESTATEMENT = 7_000;

function statementsOf(draws: number[]): Statements {
  const assets = draws.slice(8, 12).map((v) => (Math.abs(v) + 1000) * 1_000_000);
  return {
    ocf: draws.slice(0, 4).map((v) => v * 1000 + 1), // can be negative: operations may use cash
    capex: draws.slice(4, 8).map((v) => Math.abs(v) * 1000 + 2),
    assets,
    cash: assets.map((a, q) => a / 10 + (draws[q]! + 300) * 1000),
    equity: assets.map((a, q) => (a * 2) / 5 + (draws[q + 4]! + 300) * 1000),
  };
}

/** The accounting acquirer's figure where the model company had `value`: another company's, nowhere near it. */
const acquirers = (value: number) => Math.round(value / 10) + 3_000;

/**
 * The company facts: per fiscal year three 10-Qs (the quarter's revenue and its year to date; cash flows year to date
 * only, last year's beside them; total assets, cash and equity at the quarter's end and the last year-end) and a 10-K (the year and
 * two before it; total assets at this and the last year-end). Each tagged with its own fy/fp.
 */
function accession(index: number): string {
  return `0000001234-${String(10 + (index >> 6)).padStart(2, "0")}-${String(index).padStart(6, "0")}`;
}

function companyFacts(model: ModelYear[], statements: Statements[], disturb: Disturb): unknown {
  const facts: Record<string, Fact[]> = {
    Revenues: [],
    NetIncomeLoss: [],
    WeightedAverageNumberOfSharesOutstandingBasic: [],
    WeightedAverageNumberOfDilutedSharesOutstanding: [],
    NetCashProvidedByUsedInOperatingActivities: [],
    PaymentsToAcquirePropertyPlantAndEquipment: [],
    Assets: [],
    CashAndCashEquivalentsAtCarryingValue: [],
    StockholdersEquity: [],
  };
  let n = 0;
  model.forEach((year, k) => {
    for (let q = 0; q < 4; q++) {
      const index = n++;
      const annual = q === 3;
      const filed = annual ? tenKFiled(year) : addDays(year.ends[q]!, 40);
      const tag = { accn: accession(index), fy: year.label, fp: annual ? "FY" : `Q${q + 1}`, form: annual ? "10-K" : "10-Q", filed };
      // After a reverse merger the filings give the earlier years as the accounting acquirer's (shares are left alone).
      const as = (y: number) => (disturb.merger !== null && index >= disturb.merger && y < disturb.merger >> 2 ? acquirers : (v: number) => v);
      const flows = (y: number, to: number) => {
        const m = model[y]!;
        const s = statements[y]!;
        const restate = annual && y < k && disturb.restated === y ? RESTATEMENT : 0; // the next 10-K restates, later ones repeat it
        const capex = as(y)(sum(s.capex.slice(0, to + 1)));
        facts.NetCashProvidedByUsedInOperatingActivities!.push({ start: m.start, end: m.ends[to]!, val: as(y)(sum(s.ocf.slice(0, to + 1))) + restate, ...tag });
        facts.PaymentsToAcquirePropertyPlantAndEquipment!.push({ start: m.start, end: m.ends[to]!, val: disturb.negative === index ? -capex : capex, ...tag });
      };
      const revenue = (y: number, from: number, to: number) => {
        const m = model[y]!;
        const span = { start: from === 0 ? m.start : addDays(m.ends[from - 1]!, 1), end: m.ends[to]! };
        facts.Revenues!.push({ ...span, val: as(y)(sum(m.revenue.slice(from, to + 1))), ...tag });
        facts.NetIncomeLoss!.push({ ...span, val: as(y)(sum(m.income.slice(from, to + 1))), ...tag });
        facts.WeightedAverageNumberOfSharesOutstandingBasic!.push({ ...span, val: m.basic, ...tag });
        facts.WeightedAverageNumberOfDilutedSharesOutstanding!.push({ ...span, val: m.shares, ...tag });
      };
      const assets = (y: number, at: number) => {
        const [end, s] = [model[y]!.ends[at]!, statements[y]!];
        facts.Assets!.push({ end, val: as(y)(s.assets[at]!), ...tag });
        facts.CashAndCashEquivalentsAtCarryingValue!.push({ end, val: as(y)(s.cash[at]!), ...tag });
        facts.StockholdersEquity!.push({ end, val: as(y)(s.equity[at]!), ...tag });
      };
      if (annual) {
        for (const y of [k, k - 1, k - 2].filter((y) => y >= 0)) {
          flows(y, 3);
          revenue(y, 0, 3);
        }
        assets(k, 3);
        if (k > 0) assets(k - 1, 3);
      } else {
        for (const y of [k, k - 1].filter((y) => y >= 0)) {
          flows(y, q);
          revenue(y, q, q);
          if (q > 0) revenue(y, 0, q);
        }
        assets(k, q);
        if (k > 0) assets(k - 1, 3);
      }
    }
  });
  const random = mulberry(disturb.seed);
  const usGaap = Object.fromEntries(Object.entries(facts).map(([name, list]) => [name, { units: { [name.startsWith("Weighted") ? "shares" : "USD"]: shuffle(list, random) } }]));
  return { cik: 1234, entityName: "Model Co", facts: { "us-gaap": usGaap } };
}
