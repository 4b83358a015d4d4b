// The app registers every route once, from the route table (schemas/api.ts): /mcp included, no path of its own.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DISCOVERY_ROUTES, ROUTES, SUBSCRIPTION_ROUTES } from "../../schemas/api.ts";
import { testGateway } from "../../test/_gateway.ts";
import { removeDir } from "../../test/_s3.ts";

const TABLE = [...ROUTES, ...DISCOVERY_ROUTES, ...SUBSCRIPTION_ROUTES];

describe("the app's routes", () => {
  it("are the route table's, each registered from its entry: app.ts spells no path itself", () => {
    const data = mkdtempSync(join(tmpdir(), "app-routes-"));
    const gw = testGateway(data);
    try {
      expect(gw.app["~routes"].map((r) => r.route).sort()).toEqual(TABLE.map((r) => r.path).sort());
    } finally {
      gw.close();
      removeDir(data);
    }
    const app = readFileSync(new URL("./app.ts", import.meta.url), "utf8");
    expect(TABLE.map((r) => r.path).filter((path) => new RegExp(`["'\`]${path.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}["'\`]`).test(app))).toEqual([]);
  });
});
