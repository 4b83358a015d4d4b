// EDGAR's nightly bulk archives as a source (`bulk:PATH`): submissions.zip and companyfacts.zip read entry by
// entry, in place (never extracted to disk); every other path (Form 4 XML, daily indexes) comes from a delegate.
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { promisify } from "node:util";
import { inflateRaw as inflateRawCallback } from "node:zlib";
import yauzl from "yauzl";
import { decodeText } from "./decode.ts";
import { COMPANY_FACTS_FOLDER, SUBMISSIONS_FOLDER, TICKERS_PATH } from "./paths.ts";
import { newStats, SourceError, SourceNotFoundError, type Source, type SourceStats } from "./source.ts";

const inflateRaw = promisify(inflateRawCallback);

/** The archives a bulk folder holds, by the EDGAR folder whose files they carry. */
export const BULK_ARCHIVES = { [SUBMISSIONS_FOLDER]: "submissions.zip", [COMPANY_FACTS_FOLDER]: "companyfacts.zip" } as const;

/** A bulk source also owns open archive files, so whoever opens it closes it. */
export interface BulkSource extends Source {
  close(): Promise<void>;
}

/**
 * Reads `submissions/…` and `api/xbrl/companyfacts/…` from the archives in `folder`, `files/company_tickers.json`
 * from the folder when present (SEC's bulk download has none), and everything else from `delegate`.
 * Each archive's central directory is indexed once; an entry is then inflated on its own, so memory stays
 * bounded by the entries in flight, not by the archive.
 */
export function createBulkSource(folder: string, delegate: Source): BulkSource {
  const own = newStats();
  const archives = new Map<string, Promise<Archive>>();
  const archive = (file: string) => {
    let opened = archives.get(file);
    if (!opened) archives.set(file, (opened = openArchive(join(folder, file))));
    return opened;
  };
  const tickersFile = join(folder, basename(TICKERS_PATH));
  return {
    name: `bulk:${folder} (form4: ${delegate.name})`,
    // Reads from the archives and the delegate's requests add up to what this build asked for.
    get stats(): SourceStats {
      const d = delegate.stats;
      return { requests: own.requests + d.requests, retries: d.retries, bytes: own.bytes + d.bytes, throttled: d.throttled };
    },
    describe: (path) => {
      const prefix = archivePrefix(path);
      // The archive, then the EDGAR path its entry stands for (the entry name is the path's last part).
      return prefix ? `bulk:${folder}/${BULK_ARCHIVES[prefix]}#${path}` : delegate.describe(path);
    },
    async getText(path) {
      const prefix = archivePrefix(path);
      if (!prefix && path === TICKERS_PATH && existsSync(tickersFile)) {
        own.requests++;
        const bytes = await readFile(tickersFile);
        own.bytes += bytes.length;
        return decodeText(bytes, path);
      }
      if (!prefix) return delegate.getText(path);
      let zip: Archive;
      try {
        zip = await archive(BULK_ARCHIVES[prefix]);
      } catch (error) {
        throw new SourceError(path, `cannot open ${join(folder, BULK_ARCHIVES[prefix])}: ${(error as Error).message}`, { cause: error });
      }
      const entry = zip.entries.get(path.slice(prefix.length));
      if (!entry) throw new SourceNotFoundError(path);
      own.requests++;
      let bytes: Buffer;
      try {
        bytes = await readEntry(zip.file, entry);
      } catch (error) {
        throw new SourceError(path, `${BULK_ARCHIVES[prefix]}: ${(error as Error).message}`, { cause: error });
      }
      own.bytes += bytes.length;
      return decodeText(bytes, path);
    },
    async close() {
      const opened = [...archives.values()];
      archives.clear();
      for (const zip of await Promise.allSettled(opened)) if (zip.status === "fulfilled") zip.value.file.close();
    },
  };
}

interface Archive {
  file: yauzl.ZipFile;
  entries: Map<string, yauzl.Entry>;
}

function archivePrefix(path: string): keyof typeof BULK_ARCHIVES | undefined {
  return (Object.keys(BULK_ARCHIVES) as (keyof typeof BULK_ARCHIVES)[]).find((p) => path.startsWith(p) && !path.slice(p.length).includes("/"));
}

/** Opens a zip and reads its central directory once (names and offsets only; no entry is inflated). */
function openArchive(file: string): Promise<Archive> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true, autoClose: false }, (error, zip) => {
      if (error) return reject(error);
      const entries = new Map<string, yauzl.Entry>();
      zip.on("entry", (entry: yauzl.Entry) => {
        if (!entry.fileName.endsWith("/")) entries.set(entry.fileName, entry);
        zip.readEntry();
      });
      zip.once("end", () => resolve({ file: zip, entries }));
      zip.once("error", reject);
      zip.readEntry();
    });
  });
}

/**
 * Reads one entry's compressed bytes (yauzl checks its local header), then inflates them in one call on libuv's
 * thread pool: one hand-off per entry instead of one per 16 KB chunk, and the main thread never inflates.
 * The output may not exceed the size the central directory declares (a zip bomb stops there).
 */
async function readEntry(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<Buffer> {
  const stored = await new Promise<Buffer>((resolve, reject) => {
    zip.openReadStream(entry, entry.isCompressed() ? { decompress: false } : {}, (error, stream) => {
      if (error) return reject(error);
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.once("error", reject);
      stream.once("end", () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    });
  });
  const size = Math.max(1, entry.uncompressedSize);
  // chunkSize = the whole entry: zlib's one-shot call still works chunk by chunk, one thread-pool trip each.
  const data = entry.isCompressed() ? await inflateRaw(stored, { maxOutputLength: size, chunkSize: Math.max(size, 64) }) : stored;
  if (data.length !== entry.uncompressedSize) {
    throw new Error(`${entry.fileName}: ${data.length} bytes inflated, the archive declares ${entry.uncompressedSize}`);
  }
  return data;
}
