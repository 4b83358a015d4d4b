// The cross-company documents a build assembles from its companies' spooled parts: a screen's companies in ticker order,
// each with its own states as spooled; the bytes held at once bounded; a failed write failing the whole; a killed
// build's spool removed.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { createStorage, type Storage } from "unstorage";
import { describe, expect, it } from "vitest";
import { ScreenDocument, storeState, type CompanyInfo, type ScreenValue } from "../../schemas/cross.ts";
import type { CompanyCross } from "../pipeline/company.ts";
import { CrossAssembler } from "./assemble.ts";

const BUILD = "20270601T000000Z-abcdef";
const BUILT_AT = "2027-06-01T00:00:00.000Z";
// Tickers a plain sort of whole lines and of tickers could order differently if the join compared the wrong thing.
const TICKERS = ["BRK-B", "ZZ9", "A", "BRK", "AA", "BF-A", ...Array.from({ length: 54 }, (_, i) => `T${(i * 37) % 54}X`)];

function company(ticker: string, i: number): CompanyCross {
  const info: CompanyInfo = { ticker, tickers: [ticker], cik: 1000 + i, name: `Company ${ticker}`, sic: "3571", sic_description: null, exchange: "Nasdaq" };
  // A value from a date, for some withdrawn later (the stored form: the join copies it, never reads it).
  const value = (metric: string): ScreenValue => ({
    ...{ value: i * 1000 + metric.length, unit: "USD", concept: "Revenues", fiscal_year: 2024, fiscal_quarter: "Q3", months: 3 },
    ...{ period_start: "2024-07-01", period_end: "2024-09-30", derived: false, restated: false, original_value: null, marks: [] },
    ...{ source_accession: "0000320193-24-000123", filed_at: "2024-11-01" },
  });
  const states = (metric: string) => JSON.stringify([{ from: "2024-11-01", row: value(metric) }, ...(i % 5 ? [] : [{ from: "2025-02-01", row: null }])].map(storeState));
  return {
    company: info,
    frames: { CY2024Q3: { revenue: states("revenue"), net_income: states("net_income") }, ttm: { revenue: states("ttm") } },
    filings: [],
    insiders: [],
  };
}

/** A memory store that tells what it was given while writes were in flight (each write takes a few milliseconds). */
function slowStore(fail?: (key: string) => boolean) {
  const storage = createStorage();
  let inFlight = 0;
  const seen = { most: 0 };
  const setItemRaw = storage.setItemRaw.bind(storage);
  storage.setItemRaw = (async (key: string, value: Uint8Array) => {
    inFlight++;
    seen.most = Math.max(seen.most, inFlight);
    try {
      await sleep(5);
      if (fail?.(key)) throw new Error(`store refused ${key}`);
      await setItemRaw(key, value);
    } finally {
      inFlight--;
    }
  }) as Storage["setItemRaw"];
  return { storage, seen };
}

async function assembled(options?: { joinBytes?: number }, fail?: (key: string) => boolean) {
  const assembler = new CrossAssembler(options);
  TICKERS.forEach((ticker, i) => assembler.add(company(ticker, i), {}));
  const { storage, seen } = slowStore(fail);
  try {
    const manifest = await assembler.write(storage, BUILD, BUILT_AT, undefined);
    return { manifest, storage, seen };
  } finally {
    assembler.dispose();
  }
}

describe("CrossAssembler", () => {
  it("writes each screen with every company once, in ticker order, its states as spooled, hashed as stored", async () => {
    const { manifest, storage } = await assembled();
    expect(Object.keys(manifest.screens)).toEqual(["CY2024Q3", "ttm"]);
    expect(Object.keys(manifest.screens.CY2024Q3!)).toEqual(["revenue", "net_income"]);
    for (const [frame, metric] of [["CY2024Q3", "revenue"], ["CY2024Q3", "net_income"], ["ttm", "revenue"]] as const) {
      const ref = manifest.screens[frame]![metric]!;
      const bytes = (await storage.getItemRaw(ref.key)) as Uint8Array;
      expect(createHash("sha256").update(bytes).digest("hex").slice(0, 32)).toBe(ref.sha256);
      const doc = ScreenDocument.parse(JSON.parse(Buffer.from(bytes).toString()));
      expect(doc.frame).toBe(frame);
      expect(doc.metric).toBe(metric);
      expect(ref.rows).toBe(TICKERS.length);
      expect(doc.companies.map((c) => c.ticker)).toEqual([...TICKERS].sort());
      for (const entry of doc.companies) {
        const i = TICKERS.indexOf(entry.ticker);
        expect(JSON.stringify(entry.states)).toBe(company(entry.ticker, i).frames[frame]![metric]);
      }
    }
    expect(Object.keys(JSON.parse(Buffer.from((await storage.getItemRaw(manifest.index.key)) as Uint8Array).toString()).companies)).toEqual([...TICKERS].sort());
  });

  it("joins several screens at once, but no more bytes of them than its budget allows (one at least)", async () => {
    expect((await assembled()).seen.most).toBe(3); // every screen at once: each is far below the default budget
    expect((await assembled({ joinBytes: 1 })).seen.most).toBe(1); // each alone, though larger than the budget
  });

  it("fails the whole write with the store's error when one screen cannot be written, after the others in flight end", async () => {
    const failing = assembled(undefined, (key) => key.endsWith("net_income.json"));
    await expect(failing).rejects.toThrow(/store refused .*CY2024Q3\/net_income\.json/);
  });
});

describe("a killed build's spool", () => {
  it("is removed by the next build's assembler; a living process's is kept", async () => {
    const tmp = mkdtempSync(join(tmpdir(), "spools-"));
    try {
      const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
      const dead = Number(child.stdout); // exited: as a SIGKILLed build's, its spool stays behind
      for (const pid of [dead, process.pid]) {
        mkdirSync(join(tmp, `cross-spool-${pid}-abc123`));
        writeFileSync(join(tmp, `cross-spool-${pid}-abc123`, "screen-CY2024Q3-revenue"), "{}\n");
      }
      const assembler = new CrossAssembler({ tmp });
      const left = readdirSync(tmp);
      expect(left).toHaveLength(2); // the living process's, and the new assembler's own
      expect(left).toContain(`cross-spool-${process.pid}-abc123`);
      expect(left.every((name) => name.startsWith(`cross-spool-${process.pid}-`))).toBe(true);
      assembler.dispose();
      expect(readdirSync(tmp)).toEqual([`cross-spool-${process.pid}-abc123`]);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
