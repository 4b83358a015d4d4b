import { describe, expect, it } from "vitest";
import { loadBuildConfig } from "./config.ts";

describe("builder configuration", () => {
  it("has defaults for an empty environment (empty values count as unset)", () => {
    expect(loadBuildConfig({ EDGAR_USER_AGENT: "", LOG_LEVEL: "" })).toEqual({
      dataUrl: "data",
      source: "live",
      userAgent: null,
      logLevel: "info",
      storageEnv: {},
      followTiming: {},
      metrics: null,
      metricsFile: null,
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
      METRICS_PORT: "9465",
      METRICS_FILE: "/var/lib/node_exporter/textfile/fds_build.prom",
    });
    expect(config).toEqual({
      dataUrl: "s3://bucket/prefix",
      source: "dir:test/fixtures/edgar",
      userAgent: "Example Co ops@example.com",
      logLevel: "warn",
      storageEnv: { S3_ENDPOINT: "http://127.0.0.1:4569", S3_FORCE_PATH_STYLE: "true", AWS_REGION: "us-east-1" },
      followTiming: { renewMs: 250 },
      metrics: { host: "127.0.0.1", port: 9465 },
      metricsFile: "/var/lib/node_exporter/textfile/fds_build.prom",
    });
    expect(JSON.stringify(config)).not.toContain("never-copied");
  });

  it("refuses a bad value, naming the variable", () => {
    expect(() => loadBuildConfig({ LOG_LEVEL: "loud" })).toThrow(/^bad configuration: LOG_LEVEL /);
    expect(() => loadBuildConfig({ FOLLOW_LEASE_TTL_MS: "0" })).toThrow(/^bad configuration: FOLLOW_LEASE_TTL_MS must be a positive whole number/);
    expect(() => loadBuildConfig({ METRICS_PORT: "metrics" })).toThrow(/^bad configuration: METRICS_PORT must be a port number/);
  });

  it("validates the store's variables with its own and names every bad one in one message", () => {
    expect(() => loadBuildConfig({ DATA_URL: "http://x", S3_ENDPOINT: "bad", S3_FORCE_PATH_STYLE: "maybe", LOG_LEVEL: "loud" })).toThrow(
      /^bad configuration: DATA_URL must be a folder, fs:PATH or s3:\/\/bucket\/prefix, not "http:\/\/x"; S3_ENDPOINT must be an http\(s\) URL; S3_FORCE_PATH_STYLE must be true or false \(or 1 or 0\); LOG_LEVEL /,
    );
  });

  it("shortens only the follower intervals the follower's tests need (FOLLOW_*_MS, tests only)", () => {
    const env = { FOLLOW_LEASE_TTL_MS: "3000", FOLLOW_RENEW_MS: "500", FOLLOW_GAP_RETRY_MS: "300", FOLLOW_PRUNE_MS: "1000" };
    expect(loadBuildConfig(env).followTiming).toEqual({ leaseTtlMs: 3000, renewMs: 500, gapRetryMs: 300, pruneEveryMs: 1000 });
  });
});
