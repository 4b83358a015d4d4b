// Writes zip archives shaped like EDGAR's nightly bulk files, for the bulk source's tests and benchmark.
// Entry contents are made lazily, one at a time, so a large archive never sits in memory whole.
import { createWriteStream } from "node:fs";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import yazl from "yazl";

/** One archive entry: its name and a function that makes its text when its turn comes. */
export type LazyEntry = [name: string, make: () => string];

/** Writes `entries` into a deflated zip at `file` (zip64 only when needed, as yazl decides). */
export async function writeZip(file: string, entries: Iterable<LazyEntry>, compressionLevel = 6): Promise<void> {
  const zip = new yazl.ZipFile();
  for (const [name, make] of entries) {
    zip.addReadStreamLazy(name, { compressionLevel }, (cb) => cb(null, Readable.from([Buffer.from(make())])));
  }
  zip.end();
  await pipeline(zip.outputStream as Readable, createWriteStream(file));
}
