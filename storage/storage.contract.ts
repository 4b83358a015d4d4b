// The behaviours every storage back end must have (fs folder and S3 alike): one suite, run per back end.
import type { Storage } from "unstorage";
import { expect, it } from "vitest";
import { createIfAbsent } from "./claim.ts";
import { readJson, readText, writeJson } from "./json.ts";
import { removePrefix } from "./remove.ts";
import { removeTemporaries } from "./temporaries.ts";
import { z } from "zod";

/**
 * Registers the contract tests for a back end: `fresh` names a new, empty location and `openAt` opens a store on a
 * location (twice for one location: two processes sharing the store).
 */
export function storageContract(fresh: () => string, openAt: (location: string) => Storage): void {
  const open = () => openAt(fresh());
  const bytes = (text: string) => new TextEncoder().encode(text);
  it("reads back what it wrote, byte for byte, and null for a missing key", async () => {
    const storage = open();
    const text = '{"a":"Zürich ✓","b":[1,2]}';
    await storage.setItemRaw("snapshots/b1/tickers/AAPL/filings.json", new TextEncoder().encode(text));
    expect(await readText(storage, "snapshots/b1/tickers/AAPL/filings.json")).toBe(text);
    expect(await readText(storage, "snapshots/b1/tickers/MSFT/filings.json")).toBeNull();
    expect(await storage.hasItem("snapshots/b1/tickers/AAPL/filings.json")).toBe(true);
    expect(await storage.hasItem("snapshots/b1/tickers/MSFT/filings.json")).toBe(false);
  });

  it("lists keys under a base only, with ':' separators", async () => {
    const storage = open();
    for (const key of ["snapshots/b1/manifest.json", "snapshots/b1/tickers/A/x.json", "snapshots/b2/manifest.json", "current.json"]) {
      await storage.setItemRaw(key, new TextEncoder().encode("{}"));
    }
    expect((await storage.getKeys("snapshots/b1")).sort()).toEqual(["snapshots:b1:manifest.json", "snapshots:b1:tickers:A:x.json"]);
    expect((await storage.getKeys("snapshots")).length).toBe(3);
  });

  it("overwrites and removes, and removes a folder without touching its neighbours", async () => {
    const storage = open();
    await storage.setItemRaw("current.json", new TextEncoder().encode('{"v":1}'));
    await storage.setItemRaw("current.json", new TextEncoder().encode('{"v":2}'));
    expect(await readText(storage, "current.json")).toBe('{"v":2}');
    await storage.setItemRaw("snapshots/old/a.json", new TextEncoder().encode("{}"));
    await storage.setItemRaw("snapshots/keep/a.json", new TextEncoder().encode("{}"));
    await removePrefix(storage, "snapshots/old");
    expect(await storage.getKeys("snapshots")).toEqual(["snapshots:keep:a.json"]);
    await storage.removeItem("current.json");
    expect(await readText(storage, "current.json")).toBeNull();
    await storage.setItemRaw("snapshots/old/b.json", new TextEncoder().encode('{"again":true}')); // its folder was removed
    expect(await readText(storage, "snapshots/old/b.json")).toBe('{"again":true}');
  });

  it("validates documents on the way in and on the way out", async () => {
    const storage = open();
    const Doc = z.object({ n: z.number() });
    await expect(writeJson(storage, "doc.json", Doc, { n: "x" } as never)).rejects.toThrow(/refusing to write doc\.json/);
    expect(await storage.hasItem("doc.json")).toBe(false);
    await writeJson(storage, "doc.json", Doc, { n: 1 });
    expect(await readJson(storage, "doc.json", Doc)).toEqual({ n: 1 });
    await storage.setItemRaw("bad.json", new TextEncoder().encode('{"n":'));
    await expect(readJson(storage, "bad.json", Doc)).rejects.toThrow(/bad\.json: not valid JSON/);
  });

  it("creates a key only if it is absent: of 20 simultaneous attempts from two stores on one location, exactly one", async () => {
    const location = fresh();
    const [a, b] = [openAt(location), openAt(location)];
    const key = "billing/events/evt_contract.json";
    const won = await Promise.all(Array.from({ length: 20 }, (_, i) => createIfAbsent(i % 2 ? a : b, key, bytes(`{"attempt":${i}}`))));
    expect(won.filter(Boolean)).toHaveLength(1);
    // The winner's bytes, whole, for every reader; nothing else overwrote them.
    expect(await readText(a, key)).toBe(`{"attempt":${won.indexOf(true)}}`);
    expect(await readText(b, key)).toBe(`{"attempt":${won.indexOf(true)}}`);
    expect(await a.getKeys("billing")).toEqual(["billing:events:evt_contract.json"]);
  });

  it("removing temporaries, however old the bound, never removes a key", async () => {
    const storage = open();
    const keys = ["current.json", "snapshots/b1/manifest.json", "snapshots/b1/tickers/AAPL/filings.json", "cache/form4/0000320193-26-000001.json"];
    for (const key of keys) await storage.setItemRaw(key, bytes("{}"));
    expect(await createIfAbsent(storage, "leases/writer/000000000001.json", bytes("{}"))).toBe(true);
    expect(await removeTemporaries(storage, new Date(Date.now() + 86_400_000))).toBe(0);
    for (const key of [...keys, "leases/writer/000000000001.json"]) expect(await readText(storage, key)).toBe("{}");
  });

  it("never overwrites a key written any other way, and creates it again once it is removed", async () => {
    const storage = open();
    await storage.setItemRaw("leases/builder.json", bytes('{"v":1}'));
    expect(await createIfAbsent(storage, "leases/builder.json", bytes('{"v":2}'))).toBe(false);
    expect(await readText(storage, "leases/builder.json")).toBe('{"v":1}');
    await storage.removeItem("leases/builder.json");
    expect(await createIfAbsent(storage, "leases/builder.json", bytes('{"v":3}'))).toBe(true);
    expect(await readText(storage, "leases/builder.json")).toBe('{"v":3}');
    expect(await createIfAbsent(storage, "deep/new/folder/x.json", bytes("{}"))).toBe(true); // its folder did not exist
  });
}
