import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeDir, startS3, type S3Server } from "../test/_s3.ts";
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
  storageContract(() => openStorage(fresh()));

  it("accepts fs:PATH and leaves no temporary files after writing", async () => {
    const dir = fresh();
    const storage = openStorage(`fs:${dir}`);
    await storage.setItemRaw("current.json", new TextEncoder().encode("{}"));
    expect(readdirSync(dir)).toEqual(["current.json"]);
  });
});

describe("storage: S3 (s3rver on loopback, @aws-sdk/client-s3 over HTTP)", () => {
  let s3: S3Server;
  let n = 0;
  beforeAll(async () => {
    s3 = await startS3();
  });
  afterAll(async () => {
    await s3?.stop();
  });
  storageContract(() => openStorage(`s3://${s3.bucket}/run-${n++}`, s3.env));
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
