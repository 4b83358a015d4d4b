// A folder in EDGAR's URL layout as a source (`dir:PATH`): files read in place, never copied.
import { readFile } from "node:fs/promises";
import { resolve, sep } from "node:path";
import { decodeText } from "./decode.ts";
import { newStats, SourceError, SourceNotFoundError, type Source } from "./source.ts";

/** Reads EDGAR paths under a local folder. */
export function createDirSource(root: string): Source {
  const base = resolve(root);
  const stats = newStats();
  return {
    name: `dir:${root}`,
    stats,
    describe: (path) => `dir:${root}/${path}`,
    async getText(path) {
      const file = resolve(base, path);
      if (!file.startsWith(base + sep)) throw new SourceError(path, "path escapes the mirror folder");
      stats.requests++;
      let bytes: Buffer;
      try {
        bytes = await readFile(file);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") throw new SourceNotFoundError(path);
        throw new SourceError(path, (error as Error).message, { cause: error });
      }
      stats.bytes += bytes.length;
      return decodeText(bytes, path);
    },
  };
}
