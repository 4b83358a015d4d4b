// The house (issue 42): no import cycles among the programs' modules. A cycle — even of types only — makes two modules
// one, and leaves which loads first to chance; the two that were here (financials-history ↔ financials-ttm,
// observations ↔ period-identity) now share what they needed through a third module.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..");
/** Every folder of the programs, their tests and helpers (the fixtures' cutter included). */
const FOLDERS = ["schemas", "storage", "logging", "build", "gateway", "bin", "bench", "test"];

describe("imports", () => {
  it("no module imports itself through others: not a value, not a type, not a dynamic import", () => {
    const files = FOLDERS.flatMap((dir) => readdirSync(join(ROOT, dir), { recursive: true, encoding: "utf8" }).map((f) => `${dir}/${f}`)).filter((f) => f.endsWith(".ts"));
    expect(files.length).toBeGreaterThan(250);
    expect(importCycles(importGraph(files, (f) => readFileSync(join(ROOT, f), "utf8")))).toEqual([]);
  });

  it("the check finds a cycle of type imports and a longer one through a dynamic import and a re-export", () => {
    const sources: Record<string, string> = {
      "a/x.ts": 'import type { Y } from "./y.ts";\nexport const x = 1;',
      "a/y.ts": 'import {\n  x,\n} from "./x.ts";\nexport type Y = number;',
      "b/p.ts": 'export { q } from "./q.ts";',
      "b/q.ts": 'export const q = async () => import("../b/r.ts");',
      "b/r.ts": 'import { p } from "./p.ts";',
      "b/s.ts": 'import { p } from "./p.ts"; import "node:fs"; import { z } from "zod";',
    };
    expect(importCycles(importGraph(Object.keys(sources), (f) => sources[f]!))).toEqual([
      ["a/x.ts", "a/y.ts"],
      ["b/p.ts", "b/q.ts", "b/r.ts"],
    ]);
  });
});

/** Each file's relative imports that are files of the set: static (values and types), re-exports, dynamic. */
function importGraph(files: readonly string[], read: (file: string) => string): Map<string, string[]> {
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = read(file);
    const specifiers = [
      ...[...text.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s+["'](\.[^"']+)["']/gm)].map((m) => m[1]!),
      ...[...text.matchAll(/\bimport\(\s*["'](\.[^"']+)["']\s*\)/g)].map((m) => m[1]!),
    ];
    graph.set(file, [...new Set(specifiers.map((s) => normalize(join(dirname(file), s))).filter((f) => known.has(f)))]);
  }
  return graph;
}

/** The strongly connected components of more than one module, or of one that imports itself (Tarjan), each sorted. */
function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || graph.get(v)?.includes(v)) cycles.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return cycles.sort((a, b) => (a[0]! < b[0]! ? -1 : 1));
}
