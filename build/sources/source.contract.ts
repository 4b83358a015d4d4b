// The behaviours every EDGAR source must have, run against each implementation with the shared mirror.
import { expect, it } from "vitest";
import { readEdgar } from "../../test/_edgar.ts";
import { SourceNotFoundError, type Source } from "./source.ts";

/** Registers the contract tests; `open` returns a source over the shared EDGAR mirror. */
export function sourceContract(open: () => Source): void {
  it("returns a file's text exactly as the mirror holds it, and counts the request", async () => {
    const source = open();
    const before = source.stats.requests;
    expect(await source.getText("submissions/CIK0000320193.json")).toBe(readEdgar("submissions/CIK0000320193.json"));
    expect(await source.getText("files/company_tickers.json")).toBe(readEdgar("files/company_tickers.json"));
    expect(source.stats.requests).toBe(before + 2);
  });

  it("reads Archives paths (a raw Form 4 XML)", async () => {
    const path = "Archives/edgar/data/320193/000114036126017175/form4.xml";
    expect(await open().getText(path)).toBe(readEdgar(path));
  });

  it("names a missing file with SourceNotFoundError", async () => {
    await expect(open().getText("api/xbrl/companyfacts/CIK0000789019.json")).rejects.toBeInstanceOf(SourceNotFoundError);
  });

  it("describes where a path comes from", () => {
    expect(open().describe("submissions/CIK0000320193.json")).toMatch(/submissions\/CIK0000320193\.json$/);
  });
}
