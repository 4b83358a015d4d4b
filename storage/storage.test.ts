import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ListObjectsV2Command, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { createStorage } from "unstorage";
import { afterAll, describe, expect, it } from "vitest";
import { removeDir } from "../test/_s3.ts";
import { useConditionalS3 } from "../test/_s3-suite.ts";
import { createIfAbsent } from "./claim.ts";
import { describeLocation, openStorage } from "./open.ts";
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
});

describe("storage: S3 (s3rver on loopback behind the conditional-write stand-in, @aws-sdk/client-s3 over HTTP)", () => {
  const suite = useConditionalS3();
  let n = 0;
  storageContract(() => `s3://${suite.s3.bucket}/run-${n++}`, (location) => openStorage(location, suite.conditional.env));

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
    expect(() => describeLocation("http://example.com/data")).toThrow(/unsupported storage location/);
    expect(() => describeLocation("fs:")).toThrow(/empty storage location/);
    expect(() => describeLocation("s3://bucket/p", { S3_ENDPOINT: "not a url" })).toThrow(/S3_ENDPOINT must be a URL/);
  });
});
