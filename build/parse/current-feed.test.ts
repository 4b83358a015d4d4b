// EDGAR's latest-filings feed, read from a real capture (test/fixtures/edgar/cgi-bin/browse-edgar/getcurrent.atom,
// served 2026-06-11 01:42:18 EDT; see its PROVENANCE.md line) and from the replaying EDGAR the follower's tests use.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EDGAR_DIR } from "../../test/_edgar.ts";
import { startReplay, type EdgarReplay } from "../../test/_edgar-replay.ts";
import { filingsOf } from "../follow/feed.ts";
import { EdgarParseError } from "../errors.ts";
import { parseCurrentFeed } from "./current-feed.ts";

const CAPTURE = readFileSync(join(EDGAR_DIR, "cgi-bin/browse-edgar/getcurrent.atom"), "latin1");

describe("EDGAR's latest-filings feed", () => {
  const entries = parseCurrentFeed(CAPTURE, { path: "getcurrent.atom" });

  it("reads every entry of the capture: 40, newest first, each filing once per entity it names", () => {
    expect(entries).toHaveLength(40);
    // The first entry as captured: Form 144 of Morris John Christopher, filed 2026-06-10, accepted 21:57:38 EDT.
    expect(entries[0]).toEqual({
      accession: "0001988271-26-000002",
      form: "144",
      cik: 1988271,
      company: "Morris John Christopher",
      role: "Reporting",
      filed_at: "2026-06-10",
      accepted_at: "2026-06-11T01:57:38.000Z",
      index_url: "https://www.sec.gov/Archives/edgar/data/1988271/000198827126000002/0001988271-26-000002-index.htm",
    });
    for (let i = 1; i < entries.length; i++) expect(entries[i]!.accepted_at <= entries[i - 1]!.accepted_at).toBe(true);
    expect(new Set(entries.map((e) => e.role))).toEqual(new Set(["Reporting", "Subject", "Issuer"]));
    expect(new Set(entries.map((e) => e.form))).toEqual(new Set(["144", "4", "3/A", "3"]));
  });

  it("merges a filing's entries: MicroVision's Form 4 0001493152-26-028198 names its reporting owner and its issuer", () => {
    const filings = filingsOf(entries, "2026-06-11T05:42:18.000Z");
    const form4 = filings.find((f) => f.accession === "0001493152-26-028198")!;
    expect(form4).toMatchObject({ form: "4", filed_at: "2026-06-10", accepted_at: "2026-06-11T01:56:50.000Z" });
    expect(form4.parties).toEqual([{ cik: 1865433, role: "Reporting" }, { cik: 65770, role: "Issuer" }]);
    // 40 entries, 21 filings: the capture's accession numbers, each once.
    expect(filings).toHaveLength(new Set(entries.map((e) => e.accession)).size);
  });

  it("refuses what is not the feed, naming the path and the entry", () => {
    expect(() => parseCurrentFeed("<html><body>Request Rate Threshold Exceeded</body></html>", { path: "feed" })).toThrow(EdgarParseError);
    const noAccession = CAPTURE.replace("accession-number=0001988271-26-000002", "accession-number=x");
    expect(() => parseCurrentFeed(noAccession, { path: "feed" })).toThrow(/feed: entry 1: no accession number/);
    const badTime = CAPTURE.replace("2026-06-10T21:57:38-04:00", "yesterday");
    expect(() => parseCurrentFeed(badTime, { path: "feed" })).toThrow(/entry 1: acceptance time "yesterday"/);
    const mismatch = CAPTURE.replace("AccNo:&lt;/b&gt; 0001988271-26-000002", "AccNo:&lt;/b&gt; 0001988271-26-000009");
    expect(() => parseCurrentFeed(mismatch, { path: "feed" })).toThrow(/entry 1: its summary names 0001988271-26-000009/);
    expect(parseCurrentFeed(CAPTURE.replace(/<entry>[\s\S]*<\/entry>\n/, ""))).toEqual([]);
  });
});

describe("the replaying EDGAR's feed", () => {
  let replay: EdgarReplay;
  beforeAll(async () => {
    replay = await startReplay(EDGAR_DIR, [320193, 104169], 30);
  });
  afterAll(() => replay?.close());

  it("has the captured feed's shape: the same parser reads it, and pages it as EDGAR does", async () => {
    const held = replay.held();
    for (const filing of held.slice(0, 25)) replay.accept(filing.accession, new Date(Date.parse("2026-11-23T15:00:00Z") + held.indexOf(filing) * 1000));
    const page = async (start: number, count: number) => parseCurrentFeed(await (await fetch(`${replay.url}/cgi-bin/browse-edgar?action=getcurrent&type=&owner=include&start=${start}&count=${count}&output=atom`)).text());
    const first = await page(0, 10);
    expect(first).toHaveLength(10);
    expect(first[0]).toMatchObject({ accession: held[24]!.accession, accepted_at: "2026-11-23T15:00:24.000Z" });
    expect((await page(0, 15)).length).toBe(10); // 15 rounds down to 10
    expect((await page(20, 10)).map((e) => e.accession)).toEqual((await page(0, 100)).slice(20, 30).map((e) => e.accession));
    // The accepted ones first, then the companies' earlier filings at their real acceptance times (the feed reaches back).
    const all = [...(await page(0, 100)), ...(await page(100, 100))];
    expect(new Set(all.slice(0, 25).map((e) => e.accession))).toEqual(new Set(held.slice(0, 25).map((f) => f.accession)));
    expect(all[25]!.accepted_at < "2026-11-23").toBe(true);
    for (let i = 1; i < all.length; i++) expect(all[i]!.accepted_at <= all[i - 1]!.accepted_at).toBe(true);
    replay.setFeedDepth(5);
    expect(await page(0, 100)).toHaveLength(5);
  });
});
