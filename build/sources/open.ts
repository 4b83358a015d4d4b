// Chooses the source a `--source` value names: live, an http(s) mirror root, dir:PATH, or bulk:PATH (whose
// Form 4 XML and daily indexes come from the `--form4-source`, live by default).
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { createBulkSource } from "./bulk.ts";
import { createDirSource } from "./dir.ts";
import { createHttpSource, type HttpSourceOptions } from "./http.ts";
import type { Source } from "./source.ts";

/** Opens `live`, `http://host:port`, `dir:PATH` or `bulk:PATH`; anything else is refused with the accepted forms. */
export function openSource(spec: string, userAgent: string | null, extra: Partial<HttpSourceOptions> = {}, form4Spec = "live"): Source {
  if (spec.startsWith("bulk:")) {
    if (form4Spec.startsWith("bulk:")) throw new Error(`unsupported Form 4 source "${form4Spec}": use live, http://host:port or dir:PATH`);
    return createBulkSource(spec.slice(5), openSource(form4Spec, userAgent, extra));
  }
  if (spec.startsWith("dir:")) return createDirSource(existingFolder(spec));
  const declared = userAgent ? { userAgent } : {};
  if (spec === "live") return createHttpSource({ base: "live", ...declared, ...extra });
  if (/^https?:\/\/[^\s/]+/.test(spec)) return createHttpSource({ base: spec, ...declared, ...extra });
  throw new Error(`unsupported source "${spec}": use live, http://host:port (a mirror in EDGAR's layout), dir:PATH or bulk:PATH`);
}

/**
 * The folder a `dir:` source names; one that does not exist is named as missing at once (issue 42), where reading
 * from it would say only that company_tickers.json is not found. (A bulk: source names its missing archive.)
 */
function existingFolder(spec: string): string {
  const path = spec.slice(4);
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat?.isDirectory()) throw new Error(`${spec}: ${resolve(path)} ${stat ? "is not a folder" : "does not exist"}; name a folder in EDGAR's URL layout, e.g. dir:test/fixtures/edgar`);
  return path;
}
