import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ListObjectsV2Command, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { createStorage } from "unstorage";
import { afterAll, describe, expect, it } from "vitest";
import { removeDir } from "../test/_s3.ts";
import { useConditionalS3 } from "../test/_s3-suite.ts";
import { stalledWriter } from "../test/_stalled.ts";
import { createIfAbsent } from "./claim.ts";
import { readText } from "./json.ts";
import { PROBE_FOLDER } from "./s3-driver.ts";
import { removeTemporaries } from "./temporaries.ts";
import { describeLocation, openStorage, storageEnvOf, StorageVariables } from "./open.ts";
import { storageContract } from "./storage.contract.ts";

describe("storage: local folder", () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach(removeDir));
  const fresh = () => {
    const dir = mkdtempSync(join(tmpdir(), "store-"));
    dirs.push(dir);
    return dir;
  };
  storageContract(fresh, (dir) => openStorage(dir));

  it("accepts fs:PATH and leaves no temporary files after writing", async () => {
    const dir = fresh();
    const storage = openStorage(`fs:${dir}`);
    await storage.setItemRaw("current.json", new TextEncoder().encode("{}"));
    expect(readdirSync(dir)).toEqual(["current.json"]);
  });

  it("removes the temp files of writers killed mid-write, at any depth, once last written before the bound", async () => {
    const dir = fresh();
    const storage = openStorage(dir);
    const keys = ["current.json", "snapshots/b1/tickers/AAPL/filings.json"];
    for (const key of keys) await storage.setItemRaw(key, new TextEncoder().encode('{"kept":true}'));
    for (const key of keys) {
      const writer = stalledWriter(dir, key);
      await writer.inFlight;
      await writer.kill();
    }
    const temporaries = () => (readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith(".tmp")).sort();
    expect(temporaries()).toEqual([expect.stringMatching(/^current\.json\.[0-9a-f]{12}\.tmp$/), expect.stringMatching(/^snapshots\/b1\/tickers\/AAPL\/filings\.json\.[0-9a-f]{12}\.tmp$/)]);
    // Written since the bound: a writer may still be renaming them.
    expect(await removeTemporaries(storage, new Date(Date.now() - 60_000))).toBe(0);
    expect(temporaries()).toHaveLength(2);
    expect(await removeTemporaries(storage, new Date(Date.now() + 1_000))).toBe(2);
    expect(temporaries()).toEqual([]);
    for (const key of keys) expect(await readText(storage, key)).toBe('{"kept":true}');
  });
});

describe("storage: S3 (s3rver on loopback behind the conditional-write stand-in, @aws-sdk/client-s3 over HTTP)", () => {
  const suite = useConditionalS3();
  let n = 0;
  storageContract(() => `s3://${suite.s3.bucket}/run-${n++}`, (location) => openStorage(location, suite.conditional.env));

  it("removes the conditional-write probe a writer killed mid-probe left, once last written before the bound; nothing else", async () => {
    const location = `s3://${suite.s3.bucket}/probes`;
    const storage = openStorage(location, suite.conditional.env);
    expect(await createIfAbsent(storage, "leases/writer/000000000001.json", new TextEncoder().encode("{}"))).toBe(true); // probes, then removes its probe
    const client = new S3Client({ endpoint: suite.s3.endpoint, forcePathStyle: true, region: "us-east-1" });
    const left = `probes/${PROBE_FOLDER}/0b6c1f0e-killed`;
    await client.send(new PutObjectCommand({ Bucket: suite.s3.bucket, Key: left, Body: "1" }));
    const listed = async () => (await client.send(new ListObjectsV2Command({ Bucket: suite.s3.bucket, Prefix: "probes/" }))).Contents?.map((o) => o.Key).sort();
    expect(await removeTemporaries(storage, new Date(Date.now() - 60_000))).toBe(0);
    expect(await listed()).toEqual([left, "probes/leases/writer/000000000001.json"]);
    expect(await removeTemporaries(storage, new Date(Date.now() + 2_000))).toBe(1);
    expect(await listed()).toEqual(["probes/leases/writer/000000000001.json"]);
    client.destroy();
  });

  it("a burst of calls on pooled connections the store has closed meanwhile: every call answers, past the SDK's retry quota", async () => {
    // A builder busy deriving a large company for longer than S3 keeps an idle connection finds every pooled one closed
    // at its next burst; each reset costs the SDK's retry quota 14 of 500, so a burst of 50 used to fail calls.
    const storage = openStorage(`s3://${suite.s3.bucket}/stale`, suite.conditional.env);
    const keys = Array.from({ length: 60 }, (_, i) => `k${i}.json`);
    await Promise.all(keys.map((key) => storage.setItem(key, JSON.stringify({ key }))));
    for (let round = 0; round < 3; round++) {
      suite.conditional.resetNext(keys.length);
      expect(await Promise.all(keys.map((key) => storage.getItem(key)))).toEqual(keys.map((key) => ({ key })));
    }
    suite.conditional.resetNext(keys.length);
    await Promise.all(keys.map((key) => storage.setItem(key, JSON.stringify({ key, again: true }))));
    expect(await storage.getItem(keys[59]!)).toEqual({ key: keys[59], again: true });
    await storage.dispose();
  });

  it("the stand-in, not s3rver, refused the losing conditional PUTs (412)", () => {
    expect(suite.conditional.refused()).toBeGreaterThanOrEqual(20); // 19 losers of the race, 1 over a plain write
  });

  it("s3rver 3.7.1 alone ignores If-None-Match on PUT; the driver finds that out and refuses to claim rather than claim twice", async () => {
    const client = new S3Client({ endpoint: suite.s3.endpoint, forcePathStyle: true, region: "us-east-1" });
    const put = (body: string) => client.send(new PutObjectCommand({ Bucket: suite.s3.bucket, Key: "plain/x.json", Body: body, IfNoneMatch: "*" }));
    await put("1");
    await expect(put("2")).resolves.toBeDefined(); // S3 would answer 412 PreconditionFailed here
    const storage = openStorage(`s3://${suite.s3.bucket}/plain-store`, suite.s3.env);
    await expect(createIfAbsent(storage, "billing/events/evt_1.json", new TextEncoder().encode("{}"))).rejects.toThrow(/ignores If-None-Match: \* on PutObject/);
    const left = await client.send(new ListObjectsV2Command({ Bucket: suite.s3.bucket, Prefix: "plain-store/" }));
    expect(left.KeyCount).toBe(0); // the probe object was removed, and nothing was claimed
    client.destroy();
  });
});

describe("create-if-absent needs a driver that decides it atomically", () => {
  it("refuses a driver without it (unstorage's memory driver) rather than check-then-write", async () => {
    await expect(createIfAbsent(createStorage(), "billing/events/evt_1.json", new TextEncoder().encode("{}"))).rejects.toThrow(/cannot create billing\/events\/evt_1\.json atomically/);
  });
});

describe("storage locations", () => {
  it("names what it opens and refuses what it cannot", () => {
    expect(describeLocation("data").kind).toBe("fs");
    expect(describeLocation("s3://bucket/prefix/x", {}).kind).toBe("s3");
    expect(() => describeLocation("http://example.com/data")).toThrow(/^storage location must be a folder, fs:PATH or s3:\/\/bucket\/prefix, not "http:\/\/example\.com\/data"$/);
    expect(() => describeLocation("fs:")).toThrow(/^storage location must name a folder/);
    expect(() => describeLocation("s3://b/x")).toThrow(/^storage location must name an S3 bucket \(3–63 lowercase/);
  });
});

describe("the store's variables (one schema in every program's configuration)", () => {
  const parse = (env: Record<string, string>) => StorageVariables.safeParse(env);
  const named = (env: Record<string, string>) => (parse(env).error?.issues ?? []).map((i) => `${i.path.join(".")} ${i.message}`);

  it("names every bad one: a location that opens nothing, an endpoint that is no URL, a flag that is neither true nor false, a region", () => {
    expect(named({ DATA_URL: "http://x", S3_ENDPOINT: "bad", S3_FORCE_PATH_STYLE: "maybe", AWS_REGION: "US East" })).toEqual([
      'DATA_URL must be a folder, fs:PATH or s3://bucket/prefix, not "http://x"',
      "S3_ENDPOINT must be an http(s) URL",
      "S3_FORCE_PATH_STYLE must be true or false (or 1 or 0)",
      "AWS_REGION must be a region name such as us-east-1 (auto for R2)",
    ]);
    expect(named({ DATA_URL: "s3://b/x" })).toEqual(['DATA_URL must name an S3 bucket (3–63 lowercase letters, digits, dots and hyphens), not "s3://b/x"']);
  });

  it("accepts what S3-compatible stores use, and hands down only the S3 settings", () => {
    const ok = parse({ DATA_URL: "s3://filing-data/prod", S3_ENDPOINT: "https://acct.r2.cloudflarestorage.com", S3_FORCE_PATH_STYLE: "1", AWS_REGION: "auto", AWS_SECRET_ACCESS_KEY: "never-copied" });
    expect(ok.success).toBe(true);
    expect(storageEnvOf(ok.data!)).toEqual({ S3_ENDPOINT: "https://acct.r2.cloudflarestorage.com", S3_FORCE_PATH_STYLE: "1", AWS_REGION: "auto" });
    expect(parse({}).data).toEqual({ DATA_URL: "data" });
  });
});
