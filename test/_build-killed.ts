// A build that kills its own process (SIGKILL: no cleanup, no finally) at a chosen write, for retention tests:
// `node test/_build-killed.ts DEST MIRROR WHEN ISO_TIME TICKERS`, WHEN one of
//   documents:N  after the Nth per-ticker document is written (no manifest yet)
//   manifest     after the manifest is written, before current.json
//   renaming:S   mid-write: the first temp file renamed to a path containing S is written, not renamed (it stays)
// Its look-back is ten years, so that its documents differ from a 90-day build's (AAPL's 2022 Form 4) and are written.
import { promises as fsp } from "node:fs";
import type { Storage } from "unstorage";
import { runBuild } from "../build/pipeline/run.ts";
import { createDirSource } from "../build/sources/dir.ts";
import { memoryLogger } from "./_logger.ts";
import { openStorage } from "../storage/open.ts";

const [dest, mirror, when, at, tickers] = process.argv.slice(2) as [string, string, string, string, string];
const storage: Storage = openStorage(dest);
const write = storage.setItemRaw.bind(storage);
let documents = 0;
if (when.startsWith("renaming:")) {
  // The folder driver writes a temp file, then renames it into place (storage/fs-driver.ts).
  const rename = fsp.rename;
  fsp.rename = async (from, to) => {
    if (String(to).includes(when.slice(9))) process.kill(process.pid, "SIGKILL");
    return rename(from, to);
  };
}
storage.setItemRaw = async (key, value, opts) => {
  if (when === "manifest" && key === "current.json") process.kill(process.pid, "SIGKILL");
  await write(key, value, opts);
  if (when.startsWith("documents:") && key.includes("/tickers/") && ++documents >= Number(when.slice(10))) process.kill(process.pid, "SIGKILL");
};
await runBuild({ source: createDirSource(mirror), storage, log: memoryLogger(), tickers: tickers.split(","), now: () => new Date(at), workers: 0, lookbackDays: 3650 });
console.error("the build finished: it should have been killed");
process.exit(3);
