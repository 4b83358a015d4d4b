// Builder configuration (`dataset`, and the first build of `npm start`), read once from the environment at start and
// validated, beside gateway/config.ts; a command's flags override it. Library modules are handed what they need.
import { z } from "zod";
import type { MetricsAddress } from "../logging/metrics.ts";
import { parseEnv } from "../schemas/env.ts";
import { storageEnvOf, StorageVariables, type StorageEnv } from "../storage/open.ts";

/**
 * Tests only: the follower's slow intervals, shortened so that the follower suites (test/_follow-suite.ts) see a writer
 * lease lost and taken over, a missed daily index retried and pruning in seconds rather than minutes. Unset in production, where the
 * follower's own defaults (build/follow/follower.ts) suit live EDGAR.
 */
const FOLLOW_TEST_TIMING = {
  leaseTtlMs: "FOLLOW_LEASE_TTL_MS",
  renewMs: "FOLLOW_RENEW_MS",
  gapRetryMs: "FOLLOW_GAP_RETRY_MS",
  pruneEveryMs: "FOLLOW_PRUNE_MS",
} as const;

const Env = z.object({
  ...StorageVariables.shape,
  EDGAR_SOURCE: z.string().min(1).default("live"),
  EDGAR_USER_AGENT: z.string().trim().min(1).optional(),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).default("info"),
  METRICS_PORT: z.string().regex(/^\d{1,5}$/, "must be a port number (0: any free port)").transform(Number).optional(),
  METRICS_HOST: z.string().min(1).default("127.0.0.1"),
  METRICS_FILE: z.string().min(1).optional(),
  ...Object.fromEntries(Object.values(FOLLOW_TEST_TIMING).map((name) => [name, z.string().regex(/^[1-9]\d*$/, "must be a positive whole number").transform(Number).optional()])),
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
  /** S3 settings for a `s3://` location, validated (credentials stay with the AWS SDK's own chain). */
  storageEnv: StorageEnv;
  /** Tests only: the follower intervals FOLLOW_*_MS shortens (see FOLLOW_TEST_TIMING); empty in production. */
  followTiming: Partial<Record<keyof typeof FOLLOW_TEST_TIMING, number>>;
  /** Where `dataset follow` serves its metrics (METRICS_HOST, loopback by default; METRICS_PORT); null when unset. */
  metrics: MetricsAddress | null;
  /** Where `dataset build` writes its run's metrics, a node exporter textfile (METRICS_FILE); null when unset. */
  metricsFile: string | null;
}

/** Reads and validates the environment; throws one message listing every bad variable. */
export function loadBuildConfig(env: Record<string, string | undefined>): BuildConfig {
  const e = parseEnv(Env, env);
  const timing = e as unknown as Record<string, number | undefined>;
  const followTiming = Object.fromEntries(Object.entries(FOLLOW_TEST_TIMING).flatMap(([key, name]) => (timing[name] === undefined ? [] : [[key, timing[name]]])));
  return {
    dataUrl: e.DATA_URL,
    source: e.EDGAR_SOURCE,
    userAgent: e.EDGAR_USER_AGENT ?? null,
    logLevel: e.LOG_LEVEL,
    storageEnv: storageEnvOf(e),
    followTiming,
    metrics: e.METRICS_PORT === undefined ? null : { host: e.METRICS_HOST, port: e.METRICS_PORT },
    metricsFile: e.METRICS_FILE ?? null,
  };
}
