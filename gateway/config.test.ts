import { describe, expect, it } from "vitest";
import { describeConfig, loadConfig } from "./config.ts";

describe("gateway configuration", () => {
  it("defaults to dev mode on 127.0.0.1:3000 over data/", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ port: 3000, host: "127.0.0.1", dataUrl: "data", payTo: null, publicBaseUrl: "http://127.0.0.1:3000", production: false });
    expect(describeConfig(config).payments).toMatch(/DEV MODE/);
  });

  it("serves metrics only when METRICS_PORT is set, on loopback unless METRICS_HOST says otherwise (0: any free port)", () => {
    expect(loadConfig({}).metrics).toBeNull();
    expect(describeConfig(loadConfig({})).metrics).toMatch(/^off/);
    expect(loadConfig({ METRICS_PORT: "9464" }).metrics).toEqual({ host: "127.0.0.1", port: 9464 });
    expect(loadConfig({ METRICS_PORT: "0", METRICS_HOST: "10.0.0.5" }).metrics).toEqual({ host: "10.0.0.5", port: 0 });
    expect(() => loadConfig({ METRICS_PORT: "public" })).toThrow(/METRICS_PORT must be a port number/);
  });

  it("refuses dev-mode payments in production and a payTo without a facilitator", () => {
    expect(() => loadConfig({ NODE_ENV: "production" })).toThrow(/NODE_ENV=production needs X402_PAY_TO/);
    expect(() => loadConfig({ X402_PAY_TO: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" })).toThrow(/X402_FACILITATOR_URL/);
  });

  it("lists every bad variable in one message", () => {
    const attempt = () => loadConfig({ PORT: "eighty", X402_PAY_TO: "0x123", PUBLIC_BASE_URL: "not a url" });
    expect(attempt).toThrow(/PORT must be a port number/);
    expect(attempt).toThrow(/X402_PAY_TO must be a 0x-prefixed 20-byte address/);
    expect(attempt).toThrow(/PUBLIC_BASE_URL Invalid URL/);
  });

  it("validates the store's variables with its own and names every bad one in one message", () => {
    const attempt = () => loadConfig({ PORT: "bad", DATA_URL: "s3://b/x", S3_ENDPOINT: "bad", S3_FORCE_PATH_STYLE: "maybe", AWS_REGION: "US East" });
    expect(attempt).toThrow(
      /^bad configuration: PORT must be a port number; DATA_URL must name an S3 bucket .*; S3_ENDPOINT must be an http\(s\) URL; S3_FORCE_PATH_STYLE must be true or false \(or 1 or 0\); AWS_REGION must be a region name/,
    );
    const config = loadConfig({ DATA_URL: "s3://filing-data/prod", S3_ENDPOINT: "http://127.0.0.1:4568", S3_FORCE_PATH_STYLE: "true", AWS_SECRET_ACCESS_KEY: "never-copied" });
    expect(config).toMatchObject({ dataUrl: "s3://filing-data/prod", storageEnv: { S3_ENDPOINT: "http://127.0.0.1:4568", S3_FORCE_PATH_STYLE: "true" } });
    expect(JSON.stringify(config)).not.toContain("never-copied");
  });

  it("never shows credentials in what it logs", () => {
    const config = loadConfig({
      NODE_ENV: "production",
      X402_PAY_TO: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
      X402_FACILITATOR_URL: "https://facilitator.example/x402",
      CDP_API_KEY_ID: "key-id-123",
      CDP_API_KEY_SECRET: "super-secret-value",
      PUBLIC_BASE_URL: "https://api.example/",
    });
    expect(config.publicBaseUrl).toBe("https://api.example");
    const logged = JSON.stringify(describeConfig(config));
    expect(logged).not.toContain("super-secret-value");
    expect(logged).not.toContain("key-id-123");
    expect(logged).toContain("CDP credentials set");
  });
});
