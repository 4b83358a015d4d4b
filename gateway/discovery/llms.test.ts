// /llms.txt's own wording (issue 16): each route's price said once, and the fiscal labels as the builder now makes them.
import { describe, expect, it } from "vitest";
import { ROUTES } from "../../schemas/api.ts";
import { buildLlmsTxt } from "./llms.ts";

const text = buildLlmsTxt("https://api.example.test");

describe("llms.txt wording", () => {
  it("says each route's price once: a free route is free once, not 'free. Free.'", () => {
    expect(text).not.toMatch(/free\.\s+Free\b/i);
    for (const route of ROUTES) {
      const line = text.split("\n").find((l) => l.startsWith(`- [GET ${route.path}](`))!;
      expect(line.match(/\bfree\./gi) ?? [], route.path).toHaveLength(route.price ? 0 : 1);
      expect(line, route.path).toContain(route.price ? `— ${route.price} per call` : `${route.summary} — free. `);
    }
  });

  it("introduces fiscal labels as the company's fiscal calendar gives them, marked label_source", () => {
    const introduction = text.split("\n").find((l) => l.startsWith("> "))!;
    expect(introduction).not.toContain("fiscal labels of the original filing");
    expect(introduction).toContain("fiscal labels from the company's fiscal calendar");
    expect(introduction).toContain("label_source");
  });
});
