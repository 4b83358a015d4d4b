import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeZip } from "../../test/_bulk-zip.ts";
import { describeEdgar, readEdgar } from "../../test/_edgar.ts";
import { startMirror, type Mirror } from "../../test/_mirror.ts";
import { createDirSource } from "./dir.ts";
import { createHttpSource, isThrottlePage, retryAfterMs } from "./http.ts";
import { liveUrl, ownershipXmlPath } from "./paths.ts";
import { SEC_REQUESTS_PER_SECOND, TokenBucket } from "./rate-limit.ts";
import { openSource } from "./open.ts";
import yazl from "yazl";
import { MalformedInputError } from "../errors.ts";
import { SourceError, type Source } from "./source.ts";
import { sourceContract } from "./source.contract.ts";
import { EDGAR_DIR } from "../../test/_edgar.ts";

const FAST = { backoffMs: 20, maxBackoffMs: 200, timeoutMs: 2_000 };

describeEdgar("dir source", () => {
  sourceContract(() => createDirSource(EDGAR_DIR));
  it("refuses a path that leaves the folder", async () => {
    await expect(createDirSource(EDGAR_DIR).getText("../shared/DESIGN.md")).rejects.toBeInstanceOf(SourceError);
  });
});

describeEdgar("http mirror source", () => {
  let mirror: Mirror;
  beforeAll(async () => {
    mirror = await startMirror();
  });
  afterAll(() => mirror.close());
  const open = (extra: Record<string, unknown> = {}) =>
    createHttpSource({ base: mirror.url, userAgent: "Test Co test@example.com", bucket: new TokenBucket(1000), ...FAST, ...extra });

  describe("contract", () => sourceContract(() => open()));

  it("sends the declared User-Agent", async () => {
    await open().getText("files/company_tickers.json");
    expect(mirror.log.at(-1)!.userAgent).toBe("Test Co test@example.com");
  });

  it("retries 429 (honouring Retry-After), 503, resets, truncated bodies and SEC's block page, then succeeds", async () => {
    const faults = ["429", "503", "reset", "truncate", "page"] as const;
    const path = "submissions/CIK0001318605.json";
    for (const fault of faults) {
      mirror.setFaults((p, n) => {
        if (p !== path || n > 1) return undefined;
        if (fault === "429") return { kind: "status", status: 429, retryAfter: "1" };
        if (fault === "503") return { kind: "status", status: 503 };
        if (fault === "page") return { kind: "throttle-page" };
        return { kind: fault };
      });
      const source = open();
      const started = performance.now();
      const text = await source.getText(path);
      expect(JSON.parse(text).cik).toBe("0001318605");
      expect(source.stats).toMatchObject({ requests: 2, retries: 1 });
      if (fault === "429") expect(performance.now() - started).toBeGreaterThanOrEqual(990);
      if (fault === "429" || fault === "page") expect(source.stats.throttled).toBe(1);
    }
    mirror.setFaults(undefined);
  });

  it("gives up with a SourceError naming the path after its attempts, and times out slow answers", async () => {
    mirror.setFaults(() => ({ kind: "status", status: 500 }));
    const source = open({ attempts: 3 });
    await expect(source.getText("files/company_tickers.json")).rejects.toThrow(/files\/company_tickers\.json: gave up after 3 attempts \(HTTP 500\)/);
    expect(source.stats.requests).toBe(3);
    mirror.setFaults(() => ({ kind: "slow", ms: 500 }));
    await expect(open({ attempts: 1, timeoutMs: 100 }).getText("files/company_tickers.json")).rejects.toThrow(/network/);
    mirror.setFaults(undefined);
  });

  it("keeps to 10 requests per second across concurrent callers (the server's own log)", async () => {
    const source = open({ bucket: new TokenBucket(SEC_REQUESTS_PER_SECOND), concurrency: 8 });
    const first = mirror.log.length;
    const paths = Array.from({ length: 25 }, () => "Archives/edgar/data/320193/000114036126017175/form4.xml");
    await Promise.all(paths.map((p) => source.getText(p)));
    expect(mirror.log.length - first).toBe(25);
    const peak = mirror.maxPerSecond(first);
    expect(peak).toBeLessThanOrEqual(10);
    expect(peak).toBeGreaterThanOrEqual(8); // spaced, not starved
  });
});

describe("token bucket", () => {
  it("keeps request starts spaced even when a busy event loop fires their timers together", async () => {
    const bucket = new TokenBucket(10); // 120 ms apart: (1000 + 200 ms of jitter allowed) / 10
    const starts: number[] = [];
    const takes = Array.from({ length: 6 }, () => bucket.take().then(() => starts.push(performance.now())));
    const until = performance.now() + 400;
    while (performance.now() < until); // block the loop past several due timers
    await Promise.all(takes);
    // The first take started before the block (its callback just ran late); the five after it were all due during it.
    const gaps = starts.slice(2).map((t, i) => t - starts[i + 1]!);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(119);
  });
});

describe("every source reads JSON and XML strictly as UTF-8", () => {
  // "Apple Inc." with 0xff 0xfe for its last letters: bytes no UTF-8 text has.
  const bad = Buffer.concat([Buffer.from('{"cik":320193,"name":"Apple In'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
  const path = "submissions/CIK0000320193.json";
  let folder: string;
  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), "bad-utf8-"));
    mkdirSync(join(folder, "submissions"));
    writeFileSync(join(folder, path), bad);
    const zip = new yazl.ZipFile();
    zip.addBuffer(bad, "CIK0000320193.json");
    zip.end();
    await new Promise<void>((resolve) => zip.outputStream.pipe(createWriteStream(join(folder, "submissions.zip"))).once("close", resolve));
    writeFileSync(join(folder, "companyfacts.zip"), readFileSync(join(folder, "submissions.zip"))); // any valid archive
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));
  const expectMalformed = async (source: Source) => {
    const read = source.getText(path);
    await expect(read).rejects.toBeInstanceOf(MalformedInputError);
    await expect(source.getText(path)).rejects.toThrow(`${path}: not valid UTF-8: byte 0xff at offset 30`);
  };

  it("dir", () => expectMalformed(createDirSource(folder)));

  it("http mirror (not retried: the bytes would be the same)", async () => {
    const mirror = await startMirror(folder);
    try {
      await expectMalformed(createHttpSource({ base: mirror.url, bucket: new TokenBucket(1000), ...FAST }));
      expect(mirror.log.filter((l) => l.path.endsWith(path))).toHaveLength(2);
    } finally {
      await mirror.close();
    }
  });

  it("bulk archives", async () => {
    const source = openSource(`bulk:${folder}`, null, {}, `dir:${folder}`);
    await expectMalformed(source);
    await source.close?.();
  });
});

describe("http source without a mirror", () => {
  it("live refuses to start without EDGAR_USER_AGENT and says what to set", () => {
    expect(() => createHttpSource({ base: "live" })).toThrow(/EDGAR_USER_AGENT is not set.*\n.*export EDGAR_USER_AGENT=/);
    expect(createHttpSource({ base: "live", userAgent: "Acme a@b.c" }).name).toBe("live");
  });

  it("routes live paths to the right SEC host", () => {
    expect(liveUrl("submissions/CIK0000320193.json")).toBe("https://data.sec.gov/submissions/CIK0000320193.json");
    expect(liveUrl("api/xbrl/companyfacts/CIK0000320193.json")).toBe("https://data.sec.gov/api/xbrl/companyfacts/CIK0000320193.json");
    expect(liveUrl("files/company_tickers.json")).toBe("https://www.sec.gov/files/company_tickers.json");
  });

  it("finds the raw ownership XML behind the XSL rendering path", () => {
    expect(ownershipXmlPath(320193, "0001059235-26-000004", "xslF345X05/wk-form4_1772148856.xml")).toBe(
      "Archives/edgar/data/320193/000105923526000004/wk-form4_1772148856.xml",
    );
    expect(() => ownershipXmlPath(1, "0000000001-26-000001", "xslF345X05/primary_doc.html")).toThrow(/not an XML file/);
  });

  it("reads Retry-After in both forms and tells SEC's block page from data", () => {
    expect(retryAfterMs("120")).toBe(120_000);
    expect(retryAfterMs(new Date(Date.now() + 5000).toUTCString())).toBeGreaterThan(3000);
    expect(retryAfterMs("soon")).toBeUndefined();
    expect(isThrottlePage("<!DOCTYPE html><title>Request Rate Threshold Exceeded</title>")).toBe(true);
    expect(isThrottlePage('{"name":"Traffic Limit Inc"}')).toBe(false);
  });
});

describeEdgar("bulk archive source", () => {
  // Archives made here from real files: AAPL's and Tesla's submissions (Tesla with its older page) and two
  // companies' facts; Microsoft has none, like the mirror. Form 4 XML and anything else come from the dir mirror.
  const folder = mkdtempSync(join(tmpdir(), "bulk-source-"));
  const SUBMISSIONS = ["CIK0000320193.json", "CIK0001318605.json", "CIK0001318605-submissions-001.json"];
  const FACTS = ["CIK0000320193.json", "CIK0001046179.json"];
  const opened: Source[] = [];
  beforeAll(async () => {
    await writeZip(join(folder, "submissions.zip"), SUBMISSIONS.map((n) => [n, () => readEdgar(`submissions/${n}`)]));
    await writeZip(join(folder, "companyfacts.zip"), FACTS.map((n) => [n, () => readEdgar(`api/xbrl/companyfacts/${n}`)]));
  });
  afterAll(async () => {
    for (const source of opened) await source.close?.();
    rmSync(folder, { recursive: true, force: true });
  });
  const open = () => {
    const source = openSource(`bulk:${folder}`, null, {}, `dir:${EDGAR_DIR}`);
    opened.push(source);
    return source;
  };

  describe("contract", () => sourceContract(open));

  it("serves every archive entry byte for byte, older submissions pages included, and names the archive", async () => {
    const source = open();
    for (const name of SUBMISSIONS) expect(await source.getText(`submissions/${name}`)).toBe(readEdgar(`submissions/${name}`));
    const facts = "api/xbrl/companyfacts/CIK0001046179.json";
    expect(await source.getText(facts)).toBe(readEdgar(facts));
    expect(source.describe(facts)).toBe(`bulk:${folder}/companyfacts.zip#${facts}`);
    expect(source.name).toBe(`bulk:${folder} (form4: dir:${EDGAR_DIR})`);
  });

  it("reads company_tickers.json from the folder when it holds one, else from the Form 4 source", async () => {
    expect(await open().getText("files/company_tickers.json")).toBe(readEdgar("files/company_tickers.json"));
    writeFileSync(join(folder, "company_tickers.json"), '{"0":{"cik_str":320193,"ticker":"AAPL","title":"Apple Inc."}}');
    expect(JSON.parse(await open().getText("files/company_tickers.json"))).toEqual({ "0": { cik_str: 320193, ticker: "AAPL", title: "Apple Inc." } });
    rmSync(join(folder, "company_tickers.json"));
  });

  it("a damaged entry is a SourceError naming the archive and the path, never wrong text", async () => {
    const damaged = mkdtempSync(join(tmpdir(), "bulk-damaged-"));
    try {
      const name = "CIK0000320193.json";
      await writeZip(join(damaged, "submissions.zip"), [[name, () => readEdgar(`submissions/${name}`)]]);
      const bytes = readFileSync(join(damaged, "submissions.zip"));
      bytes.fill(0xff, 30 + name.length + 8, 30 + name.length + 64); // inside the deflated data, past the local header
      writeFileSync(join(damaged, "submissions.zip"), bytes);
      const source = openSource(`bulk:${damaged}`, null, {}, `dir:${EDGAR_DIR}`);
      opened.push(source);
      await expect(source.getText(`submissions/${name}`)).rejects.toThrow(SourceError);
      await expect(source.getText(`submissions/${name}`)).rejects.toThrow(/^submissions\/CIK0000320193\.json: submissions\.zip: /);
    } finally {
      rmSync(damaged, { recursive: true, force: true });
    }
  });

  it("reads stored (uncompressed) entries as well as deflated ones", async () => {
    const stored = mkdtempSync(join(tmpdir(), "bulk-stored-"));
    try {
      await writeZip(join(stored, "companyfacts.zip"), [["CIK0001046179.json", () => readEdgar("api/xbrl/companyfacts/CIK0001046179.json")]], 0);
      const source = openSource(`bulk:${stored}`, null, {}, `dir:${EDGAR_DIR}`);
      opened.push(source);
      expect(await source.getText("api/xbrl/companyfacts/CIK0001046179.json")).toBe(readEdgar("api/xbrl/companyfacts/CIK0001046179.json"));
    } finally {
      rmSync(stored, { recursive: true, force: true });
    }
  });

  it("fails with a SourceError naming the archive when it is absent", async () => {
    const source = openSource(`bulk:${join(folder, "nowhere")}`, null, {}, `dir:${EDGAR_DIR}`);
    await expect(source.getText("submissions/CIK0000320193.json")).rejects.toThrow(/submissions\/CIK0000320193\.json: cannot open .*nowhere\/submissions\.zip/);
  });
});
