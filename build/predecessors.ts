// Companies whose history EDGAR files under an earlier CIK. A holding-company reorganisation gives the listed company a
// new CIK, and EDGAR links the two nowhere a machine can read (pitfall 28), so the links are curated here, each with
// its evidence. The builder derives such a company from its predecessors' company facts and its own together.

/** An earlier CIK holding part of a company's filing history. */
export interface Predecessor {
  cik: number;
  /** What makes it the same company's history, and where that is shown. */
  why: string;
}

export const PREDECESSORS: ReadonlyMap<number, readonly Predecessor[]> = new Map([
  [
    1652044, // Alphabet Inc. (GOOGL, GOOG): its company facts begin with its 10-Q of 2015-10-29, comparatives from 2013
    [
      {
        cik: 1288776,
        why: "Google Inc. filed every report until Alphabet Inc. became its parent in a holding-company reorganisation on 2015-10-02 (Google Inc.'s Form 8-K of that day, 0001193125-15-336550, under CIK 1288776); Alphabet Inc.'s own company facts begin with its 10-Q of 2015-10-29 (the quarter to 2015-09-30), their comparatives reaching back only to 2013",
      },
    ],
  ],
  [
    2115436, // ExxonMobil Holdings Corporation: SEC's company_tickers.json maps XOM here since the reorganisation
    [
      {
        cik: 34088,
        why: "Exxon Mobil Corporation filed every report before ExxonMobil Holdings Corporation became the listed parent on 2026-07-01 (a holding-company reorganisation; Exxon Mobil Corporation's tickers are empty since, and it filed Form 25-NSE on 2026-07-02)",
      },
    ],
  ],
]);

/** A company's earlier CIKs, as curated (none for most companies). */
export function earlierCiks(cik: number, predecessors: ReadonlyMap<number, readonly Predecessor[]> = PREDECESSORS): number[] {
  return (predecessors.get(cik) ?? []).map((p) => p.cik);
}

/** The CIKs whose filings make a company's documents: its own, then its earlier ones. */
export function companyCiks(cik: number, predecessors: ReadonlyMap<number, readonly Predecessor[]> = PREDECESSORS): number[] {
  return [cik, ...earlierCiks(cik, predecessors)];
}

/** Each predecessor's CIK → the CIK of the company whose history it holds. */
export function successors(predecessors: ReadonlyMap<number, readonly Predecessor[]> = PREDECESSORS): Map<number, number> {
  const out = new Map<number, number>();
  for (const [cik, list] of predecessors) for (const p of list) out.set(p.cik, cik);
  return out;
}
