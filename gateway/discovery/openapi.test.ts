// /openapi.json states the package's version, as the MCP server's initialize does (one version for the service).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { buildOpenApi } from "./openapi.ts";

describe("OpenAPI info", () => {
  it("takes its version from package.json", () => {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
    const doc = buildOpenApi("https://api.example.test") as { info: { version: string } };
    expect(doc.info.version).toBe(pkg.version);
  });
});
