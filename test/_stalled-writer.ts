// A concurrent writer caught mid-write, for temp-file tests: `node test/_stalled-writer.ts DEST KEY` writes KEY
// through the folder store, but holds its temp file written and not yet renamed (as a stalled writer would) until a
// line arrives on stdin. It prints "in flight" once it holds it, "written" when the write ended and reads back whole
// (exit 0); any error is printed and exits 1.
import { promises as fsp } from "node:fs";
import { createInterface } from "node:readline";
import { readText } from "../storage/json.ts";
import { openStorage } from "../storage/open.ts";

const [dest, key] = process.argv.slice(2) as [string, string];
const go = new Promise<void>((resolve) => createInterface({ input: process.stdin }).once("line", () => resolve()));
const rename = fsp.rename;
fsp.rename = async (from, to) => {
  console.log("in flight");
  await go;
  return rename(from, to);
};
const text = JSON.stringify({ data: "x".repeat(1 << 20) });
try {
  const storage = openStorage(dest);
  await storage.setItemRaw(key, new TextEncoder().encode(text));
  if ((await readText(storage, key)) !== text) throw new Error(`${key} does not read back whole`);
  console.log("written");
  process.exit(0);
} catch (error) {
  console.log(`failed: ${(error as Error).message}`);
  process.exit(1);
}
