// Gateway configuration, read once from the environment and validated (DESIGN "Configuration").
// Secrets (facilitator credentials, Stripe keys) never reach `describeConfig`, which is what gets logged.
import { z } from "zod";
import { parseEnv } from "../schemas/env.ts";
import type { ConnectionLimits } from "./serve/connections.ts";
import type { MetricsAddress } from "../logging/metrics.ts";
import { storageEnvOf, StorageVariables, type StorageEnv } from "../storage/open.ts";

/**
 * Pipelining depth: answers under way on one connection, and requests it may send ahead of them. Browsers do not
 * pipeline and HTTP clients that do keep a few requests ahead; a client hundreds ahead is not reading its answers.
 */
const CONNECTION_DEFAULTS = { inFlight: 4, ahead: 64 };
/**
 * Connections of one address the rules may close (a burst, then one a second) before its new ones are refused as they
 * open: a client closed for not reading reconnects at once, thousands of times a second.
 */
const CLOSED_PER_ADDRESS = { burst: 20, perMinute: 60 };

const Address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, "must be a 0x-prefixed 20-byte address");

const Env = z.object({
  PORT: z.string().regex(/^\d{1,5}$/, "must be a port number").transform(Number).default(3000),
  HOST: z.string().default("127.0.0.1"),
  PUBLIC_BASE_URL: z.url().optional(),
  ...StorageVariables.shape,
  X402_PAY_TO: Address.optional(),
  X402_FACILITATOR_URL: z.url().optional(),
  CDP_API_KEY_ID: z.string().optional(),
  CDP_API_KEY_SECRET: z.string().optional(),
  NODE_ENV: z.string().optional(),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).default("info"),
  SNAPSHOT_POLL_MS: z.string().regex(/^\d+$/).transform(Number).default(5000),
  DOCUMENT_CACHE_MB: z.string().regex(/^\d+$/).transform(Number).default(256),
  FACILITATOR_TIMEOUT_MS: z.string().regex(/^\d+$/).transform(Number).default(10_000),
  STRIPE_SECRET_KEY: z.string().regex(/^(sk|rk)_\S+$/, "must be a Stripe secret or restricted key (sk_… or rk_…)").optional(),
  STRIPE_WEBHOOK_SECRET: z.string().regex(/^whsec_\S+$/, "must be a webhook signing secret (whsec_…)").optional(),
  STRIPE_PRICE_ID: z.string().regex(/^price_\w+$/, "must be a Stripe price id (price_…)").optional(),
  STRIPE_API_BASE: z.url({ protocol: /^https?$/ }).optional(),
  FREE_RATE_PER_MINUTE: z.string().regex(/^\d+$/, "must be a whole number").transform(Number).default(120),
  FREE_BURST: z.string().regex(/^\d+$/, "must be a whole number").transform(Number).default(30),
  TRUST_PROXY: z
    .string()
    .regex(/^(\d{1,2}|true|false)$/, "must be the number of trusted proxies in front of the gateway (0, 1, 2, …; true is 1)")
    .transform((v) => (v === "true" ? 1 : v === "false" ? 0 : Number(v)))
    .default(0),
  HEADERS_TIMEOUT_MS: z.string().regex(/^\d+$/).transform(Number).default(10_000),
  REQUEST_TIMEOUT_MS: z.string().regex(/^\d+$/).transform(Number).default(30_000),
  WRITE_TIMEOUT_MS: z.string().regex(/^\d+$/, "must be a whole number of milliseconds").transform(Number).default(10_000),
  MAX_BUFFERED_MB: z.string().regex(/^\d+$/, "must be a whole number of megabytes").transform(Number).default(64),
  MAX_CONNECTIONS: z.string().regex(/^\d+$/, "must be a whole number").transform(Number).default(10_000),
  METRICS_PORT: z.string().regex(/^\d{1,5}$/, "must be a port number (0: any free port)").transform(Number).optional(),
  METRICS_HOST: z.string().min(1).default("127.0.0.1"),
});

/** Stripe settings: all three variables or none (then the subscription routes answer 503). */
export interface StripeSettings {
  secretKey: string;
  webhookSecret: string;
  priceId: string;
  /** Where the Stripe client sends API calls instead of api.stripe.com (STRIPE_API_BASE; tests, stripe-mock). */
  api: { host: string; port: number; protocol: "http" | "https" } | null;
}

/** Validated gateway settings. */
export interface GatewayConfig {
  port: number;
  host: string;
  publicBaseUrl: string;
  dataUrl: string;
  /** S3 settings for a `s3://` DATA_URL, validated (credentials stay with the AWS SDK's own chain). */
  storageEnv: StorageEnv;
  /** Production payments when set; dev mode (in-memory test USDC) when null. */
  payTo: `0x${string}` | null;
  facilitatorUrl: string | null;
  cdp: { keyId: string; keySecret: string } | null;
  production: boolean;
  logLevel: "debug" | "info" | "warn" | "error";
  snapshotPollMs: number;
  documentCacheBytes: number;
  facilitatorTimeoutMs: number;
  stripe: StripeSettings | null;
  /** Free endpoints per client address: a token bucket (0 per minute turns it off). */
  freeRate: { perMinute: number; burst: number };
  /** Proxies in front of the gateway whose X-Forwarded-For entries are trusted (0: the socket's peer is the client). */
  trustedHops: number;
  /** Slow clients: time to send the headers, and the whole request. */
  timeouts: { headersMs: number; requestMs: number };
  /** What connections may make the gateway hold (serve/connections.ts), and how many may be open at once. */
  connections: ConnectionLimits & { max: number };
  /** Where the metrics are served (METRICS_HOST, loopback by default; METRICS_PORT); null when METRICS_PORT is unset. */
  metrics: MetricsAddress | null;
}

/** Reads and validates the environment; throws one message listing every bad variable. */
export function loadConfig(env: Record<string, string | undefined>, overrides: { port?: number; dataUrl?: string } = {}): GatewayConfig {
  const e = parseEnv(Env, env);
  const production = e.NODE_ENV === "production";
  if (production && !e.X402_PAY_TO) {
    throw new Error("NODE_ENV=production needs X402_PAY_TO (and X402_FACILITATOR_URL): dev-mode payments with test USDC are refused in production");
  }
  if (e.X402_PAY_TO && !e.X402_FACILITATOR_URL) throw new Error("X402_PAY_TO is set but X402_FACILITATOR_URL is not: name the Base-mainnet facilitator");
  const port = overrides.port ?? e.PORT;
  const stripeVars = [e.STRIPE_SECRET_KEY, e.STRIPE_WEBHOOK_SECRET, e.STRIPE_PRICE_ID];
  if (stripeVars.some(Boolean) && !stripeVars.every(Boolean)) {
    throw new Error("subscriptions need all of STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET and STRIPE_PRICE_ID (or none of them)");
  }
  return {
    port,
    host: e.HOST,
    publicBaseUrl: (e.PUBLIC_BASE_URL ?? `http://${e.HOST}:${port}`).replace(/\/+$/, ""),
    dataUrl: overrides.dataUrl ?? e.DATA_URL,
    storageEnv: storageEnvOf(e),
    payTo: (e.X402_PAY_TO as `0x${string}` | undefined) ?? null,
    facilitatorUrl: e.X402_FACILITATOR_URL ?? null,
    cdp: e.CDP_API_KEY_ID && e.CDP_API_KEY_SECRET ? { keyId: e.CDP_API_KEY_ID, keySecret: e.CDP_API_KEY_SECRET } : null,
    production,
    logLevel: e.LOG_LEVEL,
    snapshotPollMs: e.SNAPSHOT_POLL_MS,
    documentCacheBytes: e.DOCUMENT_CACHE_MB * 1024 * 1024,
    facilitatorTimeoutMs: e.FACILITATOR_TIMEOUT_MS,
    stripe: e.STRIPE_SECRET_KEY && e.STRIPE_WEBHOOK_SECRET && e.STRIPE_PRICE_ID
      ? { secretKey: e.STRIPE_SECRET_KEY, webhookSecret: e.STRIPE_WEBHOOK_SECRET, priceId: e.STRIPE_PRICE_ID, api: apiBase(e.STRIPE_API_BASE) }
      : null,
    freeRate: { perMinute: e.FREE_RATE_PER_MINUTE, burst: Math.max(1, e.FREE_BURST) },
    trustedHops: e.TRUST_PROXY,
    timeouts: { headersMs: e.HEADERS_TIMEOUT_MS, requestMs: e.REQUEST_TIMEOUT_MS },
    connections: {
      ...CONNECTION_DEFAULTS,
      // Behind a proxy every connection comes from its address: it limits its own clients' connections.
      closedPerAddress: e.TRUST_PROXY === 0 ? CLOSED_PER_ADDRESS : null,
      writeStallMs: e.WRITE_TIMEOUT_MS,
      bufferedBytes: e.MAX_BUFFERED_MB * 1024 * 1024,
      max: e.MAX_CONNECTIONS,
    },
    metrics: e.METRICS_PORT === undefined ? null : { host: e.METRICS_HOST, port: e.METRICS_PORT },
  };
}

/** The configuration as it may be logged: no credentials. */
export function describeConfig(config: GatewayConfig): Record<string, unknown> {
  return {
    port: config.port,
    public_base_url: config.publicBaseUrl,
    data_url: config.dataUrl,
    payments: config.payTo ? "x402 production" : "x402 DEV MODE (in-memory test USDC, no real money)",
    facilitator: config.facilitatorUrl ?? "in-process (dev)",
    facilitator_auth: config.cdp ? "CDP credentials set" : "none",
    subscriptions: config.stripe ? `stripe, price ${config.stripe.priceId}${config.stripe.api ? `, API at ${config.stripe.api.host}` : ""}` : "off (no STRIPE_* variables)",
    metrics: config.metrics ? `${config.metrics.host}:${config.metrics.port}` : "off (no METRICS_PORT)",
  };
}

/** "http://127.0.0.1:12111" → the Stripe client's host/port/protocol options. */
function apiBase(url: string | undefined): StripeSettings["api"] {
  if (!url) return null;
  const parsed = new URL(url);
  const protocol = parsed.protocol === "http:" ? "http" : "https";
  return { host: parsed.hostname, port: parsed.port ? Number(parsed.port) : protocol === "http" ? 80 : 443, protocol };
}
