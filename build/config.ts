// Builder configuration (`dataset`, and the first build of `npm start`), read once from the environment at start and
// validated, beside gateway/config.ts; a command's flags override it. Library modules are handed what they need.
import { z } from "zod";
import { parseEnv } from "../schemas/env.ts";
import { storageEnvOf, type StorageEnv } from "../storage/open.ts";

/** The follower's intervals, overridable for tests and the benchmark only (live EDGAR wants the defaults). */
const FOLLOW_TIMING = {
  leaseTtlMs: "FOLLOW_LEASE_TTL_MS",
  renewMs: "FOLLOW_RENEW_MS",
  gapRetryMs: "FOLLOW_GAP_RETRY_MS",
  marginMs: "FOLLOW_MARGIN_MS",
  confirmWithinMs: "FOLLOW_CONFIRM_WITHIN_MS",
  tickersEveryMs: "FOLLOW_TICKERS_MS",
  pruneEveryMs: "FOLLOW_PRUNE_MS",
} as const;

const Env = z.object({
  DATA_URL: z.string().min(1).default("data"),
  EDGAR_SOURCE: z.string().min(1).default("live"),
  EDGAR_USER_AGENT: z.string().trim().min(1).optional(),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).default("info"),
  ...Object.fromEntries(Object.values(FOLLOW_TIMING).map((name) => [name, z.string().regex(/^[1-9]\d*$/, "must be a positive whole number").transform(Number).optional()])),
});

/** Validated builder settings. */
export interface BuildConfig {
  /** Where snapshots are published (a folder, fs:PATH or s3://bucket/prefix). */
  dataUrl: string;
  /** Where EDGAR's files come from: live, http://host:port, dir:PATH or bulk:PATH (sources/open.ts). */
  source: string;
  /** The declared User-Agent SEC requires of live requests; null leaves the source's own (which live refuses). */
  userAgent: string | null;
  logLevel: "debug" | "info" | "warn" | "error";
  /** S3 settings for a `s3://` location (credentials stay with the AWS SDK's own chain). */
  storageEnv: StorageEnv;
  /** The follower's intervals set by FOLLOW_*_MS; the follower's defaults for the others. */
  followTiming: Partial<Record<keyof typeof FOLLOW_TIMING, number>>;
}

/** Reads and validates the environment; throws one message listing every bad variable. */
export function loadBuildConfig(env: Record<string, string | undefined>): BuildConfig {
  const e = parseEnv(Env, env);
  const timing = e as unknown as Record<string, number | undefined>;
  const followTiming = Object.fromEntries(Object.entries(FOLLOW_TIMING).flatMap(([key, name]) => (timing[name] === undefined ? [] : [[key, timing[name]]])));
  return { dataUrl: e.DATA_URL, source: e.EDGAR_SOURCE, userAgent: e.EDGAR_USER_AGENT ?? null, logLevel: e.LOG_LEVEL, storageEnv: storageEnvOf(env), followTiming };
}
