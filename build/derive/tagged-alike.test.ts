// Which concepts a company tags alike, from its own filings: the ties, the pairs tagged apart, and from when.
import { describe, expect, it } from "vitest";
import type { Observation } from "./observations.ts";
import { taggedAlike } from "./tagged-alike.ts";

const LIST = ["us-gaap:Revenues", "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax", "us-gaap:SalesRevenueNet"];
const [REVENUES, CONTRACTS, SALES] = LIST as [string, string, string];

/** One filing's value of revenue for a span, in a concept of the list (priority = its place) or a sum after it. */
function obs(concept: string, value: number, accn: string, filed: string): Observation {
  const at = LIST.indexOf(concept);
  return { series: "revenue", concept, priority: at < 0 ? LIST.length : at, unit: "USD", value, accn, filed, form: "10-Q", annual: false };
}
const alike = (...spans: Observation[][]) => taggedAlike(spans.map((observations) => ({ start: "", end: "", months: 3 as const, observations })), () => LIST.length).get("revenue");

describe("concepts tagged alike", () => {
  it("a filing tagging two concepts equal for one period ties the later one to the preferred, from that filing on", () => {
    const found = alike([obs(REVENUES, 100, "a-1", "2018-04-24"), obs(CONTRACTS, 100, "a-1", "2018-04-24")], [obs(CONTRACTS, 300, "a-2", "2018-07-24")]);
    expect(found).toEqual(new Map([[CONTRACTS, { as: REVENUES, since: "2018-04-24" }]]));
  });

  it("a later filing re-reporting a period's figure under the other name ties them, from that filing on", () => {
    // As a 10-K re-tags the prior year's total under the name it moves to (Xcel Energy's for 2019, the years it shows).
    expect(alike([obs(REVENUES, 100, "a-1", "2019-02-22"), obs(CONTRACTS, 100, "a-2", "2020-02-21")])).toEqual(new Map([[CONTRACTS, { as: REVENUES, since: "2020-02-21" }]]));
    // A restatement under the new name (another figure) shows nothing either way.
    expect(alike([obs(REVENUES, 100, "a-1", "2019-02-22"), obs(CONTRACTS, 104, "a-2", "2020-02-21")])).toBeUndefined();
  });

  it("values in two units, or zeros, are no tie: every line a company does not use is zero", () => {
    expect(alike([obs(REVENUES, 100, "a-1", "2018-04-24"), { ...obs(CONTRACTS, 100, "a-1", "2018-04-24"), unit: "EUR" }])).toBeUndefined();
    expect(alike([obs(REVENUES, 0, "a-1", "2018-04-24"), obs(CONTRACTS, 0, "a-1", "2018-04-24")])).toBeUndefined();
    expect(alike([obs(REVENUES, 0, "a-1", "2018-04-24"), obs(CONTRACTS, 0, "a-2", "2019-04-24")])).toBeUndefined();
  });

  it("a filing tagging them apart for any period makes them two lines, whatever other filings show", () => {
    const tie = [obs(REVENUES, 100, "a-1", "2018-04-24"), obs(CONTRACTS, 100, "a-1", "2018-04-24")];
    const apart = [obs(REVENUES, 120, "a-3", "2019-02-05"), obs(CONTRACTS, 110, "a-3", "2019-02-05")];
    expect(alike(tie, apart)).toBeUndefined();
  });

  it("a group joined through a third concept: each from the filing that joins it; none where the group holds a pair tagged apart", () => {
    const first = [obs(CONTRACTS, 100, "a-1", "2018-04-24"), obs(SALES, 100, "a-1", "2018-04-24")];
    const second = [obs(REVENUES, 200, "a-2", "2019-04-30"), obs(CONTRACTS, 200, "a-2", "2019-04-30")];
    expect(alike(first, second)).toEqual(
      new Map([
        [SALES, { as: REVENUES, since: "2019-04-30" }],
        [CONTRACTS, { as: REVENUES, since: "2019-04-30" }],
      ]),
    );
    const apart = [obs(REVENUES, 300, "a-3", "2020-02-04"), obs(SALES, 290, "a-3", "2020-02-04")];
    expect(alike(first, second, apart)).toBeUndefined();
  });

  it("a sum of lines is never tied to a concept", () => {
    expect(alike([obs(REVENUES, 100, "a-1", "2018-04-24"), obs("us-gaap:InterestIncomeExpenseNet+us-gaap:NoninterestIncome", 100, "a-1", "2018-04-24")])).toBeUndefined();
  });
});
