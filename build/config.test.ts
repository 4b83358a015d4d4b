import { describe, expect, it } from "vitest";
import { loadBuildConfig } from "./config.ts";

describe("builder configuration", () => {
  it("has defaults for an empty environment (empty values count as unset)", () => {
    expect(loadBuildConfig({ EDGAR_USER_AGENT: "", LOG_LEVEL: "" })).toEqual({
      dataUrl: "data",
      source: "live",
      userAgent: null,
      logLevel: "info",
      storageEnv: { S3_ENDPOINT: undefined, S3_FORCE_PATH_STYLE: undefined, AWS_REGION: undefined },
      followTiming: {},
    });
  });

  it("reads every variable it knows, and only those", () => {
    const config = loadBuildConfig({
      DATA_URL: "s3://bucket/prefix",
      EDGAR_SOURCE: "dir:test/fixtures/edgar",
      EDGAR_USER_AGENT: "  Example Co ops@example.com ",
      LOG_LEVEL: "warn",
      S3_ENDPOINT: "http://127.0.0.1:4569",
      S3_FORCE_PATH_STYLE: "true",
      AWS_REGION: "us-east-1",
      AWS_SECRET_ACCESS_KEY: "never-copied",
      FOLLOW_RENEW_MS: "250",
    });
    expect(config).toEqual({
      dataUrl: "s3://bucket/prefix",
      source: "dir:test/fixtures/edgar",
      userAgent: "Example Co ops@example.com",
      logLevel: "warn",
      storageEnv: { S3_ENDPOINT: "http://127.0.0.1:4569", S3_FORCE_PATH_STYLE: "true", AWS_REGION: "us-east-1" },
      followTiming: { renewMs: 250 },
    });
    expect(JSON.stringify(config)).not.toContain("never-copied");
  });

  it("refuses a bad value, naming the variable", () => {
    expect(() => loadBuildConfig({ LOG_LEVEL: "loud" })).toThrow(/^bad configuration: LOG_LEVEL /);
    expect(() => loadBuildConfig({ FOLLOW_LEASE_TTL_MS: "0" })).toThrow(/^bad configuration: FOLLOW_LEASE_TTL_MS must be a positive whole number/);
  });
});
