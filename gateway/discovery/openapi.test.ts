// /openapi.json states the specification's version (spec §9: 1.0.0), the package's, as the MCP server's initialize does
// (one version for the service).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { buildOpenApi } from "./openapi.ts";

describe("OpenAPI info", () => {
  it("says version 1.0.0, the package's own", () => {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
    const doc = buildOpenApi("https://api.example.test") as { info: { version: string } };
    expect(doc.info.version).toBe("1.0.0");
    expect(pkg.version).toBe(doc.info.version);
  });
});
