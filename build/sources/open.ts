// Chooses the source a `--source` value names: live, an http(s) mirror root, or dir:PATH.
import { createDirSource } from "./dir.ts";
import { createHttpSource, type HttpSourceOptions } from "./http.ts";
import type { Source } from "./source.ts";

/** Opens `live`, `http://host:port`, or `dir:PATH`; anything else is refused with the accepted forms. */
export function openSource(spec: string, env: { EDGAR_USER_AGENT?: string } = process.env, extra: Partial<HttpSourceOptions> = {}): Source {
  if (spec.startsWith("dir:")) return createDirSource(spec.slice(4));
  const userAgent = env.EDGAR_USER_AGENT ? { userAgent: env.EDGAR_USER_AGENT } : {};
  if (spec === "live") return createHttpSource({ base: "live", ...userAgent, ...extra });
  if (/^https?:\/\/[^\s/]+/.test(spec)) return createHttpSource({ base: spec, ...userAgent, ...extra });
  throw new Error(`unsupported source "${spec}": use live, http://host:port (a mirror in EDGAR's layout) or dir:PATH`);
}
