import { describe, expect, it } from "vitest";
import { EdgarParseError } from "../errors.ts";
import { describeEdgar, readEdgar } from "../../test/_edgar.ts";
import { parseCompanyTickers, resolveTicker } from "./tickers.ts";

describe("parseCompanyTickers on small input", () => {
  const map = parseCompanyTickers({
    "0": { cik_str: 1067983, ticker: "BRK-B", title: "BERKSHIRE HATHAWAY INC" },
    "1": { cik_str: "0001067983", ticker: "BRK-A", title: "BERKSHIRE HATHAWAY INC" },
    "2": { cik_str: 1652044, ticker: "googl", title: "Alphabet Inc." },
    "3": { cik_str: 999, ticker: "GOOGL", title: "A later duplicate" },
    "4": { cik_str: 5, ticker: "../etc", title: "not a ticker" },
  });

  it("resolves every spelling of a class share to EDGAR's hyphen form", () => {
    for (const spelling of ["BRK.B", "brk-b", "BRK/B", "brk.b"]) expect(resolveTicker(map, spelling)?.ticker).toBe("BRK-B");
  });

  it("lists several tickers for one CIK, given as a number or a zero-padded string", () => {
    expect(map.byCik.get(1067983)).toEqual(["BRK-B", "BRK-A"]);
  });

  it("keeps the first CIK of a duplicated ticker and leaves out tickers that could name a path", () => {
    expect(resolveTicker(map, "GOOGL")?.cik).toBe(1652044);
    expect(map.byTicker.has("..-ETC")).toBe(false);
    expect(map.byTicker.size).toBe(3);
  });

  it("reads the table form of company_tickers_exchange.json", () => {
    const table = parseCompanyTickers({ fields: ["cik", "name", "ticker", "exchange"], data: [[320193, "Apple Inc.", "AAPL", "Nasdaq"]] });
    expect(resolveTicker(table, "aapl")).toEqual({ ticker: "AAPL", cik: 320193, name: "Apple Inc." });
  });

  it("refuses truncated JSON, other shapes and empty files with a typed error naming the file", () => {
    expect(() => parseCompanyTickers('{"0":{"cik_str":3201')).toThrow(/company_tickers\.json: not valid JSON/);
    expect(() => parseCompanyTickers([1, 2])).toThrow(EdgarParseError);
    expect(() => parseCompanyTickers({})).toThrow(/no tickers/);
  });
});

describeEdgar("parseCompanyTickers on SEC's files", () => {
  it("maps all 9,603 rows of company_tickers.json (each ticker once) and finds the share classes", () => {
    const map = parseCompanyTickers(readEdgar("files/company_tickers.json"));
    // PROVENANCE.md: EDGAR's 9,610 entries less the 7 tickers of the five companies whose submissions the set lacks;
    // every ticker in that file is distinct and already in EDGAR's form.
    expect(map.byTicker.size).toBe(9603);
    expect(resolveTicker(map, "BRK.B")?.cik).toBe(1067983);
    expect(map.byCik.get(1336917)).toEqual(expect.arrayContaining(["UAA", "UA"]));
    expect(resolveTicker(map, "msft")).toEqual({ ticker: "MSFT", cik: 789019, name: "MICROSOFT CORP" });
  });

  it("reads company_tickers_exchange.json the same way", () => {
    const map = parseCompanyTickers(readEdgar("files/company_tickers_exchange.json"));
    expect(resolveTicker(map, "AAPL")?.cik).toBe(320193);
    expect(map.byTicker.size).toBeGreaterThan(9000);
  });
});
