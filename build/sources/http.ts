// EDGAR over HTTP: `live` (www.sec.gov + data.sec.gov) or a mirror root (`http://host:port`).
// Fair access is enforced here: declared User-Agent, the process-wide token bucket, bounded concurrency,
// retries with exponential backoff and jitter on 429/5xx/network errors honouring Retry-After, a timeout.
import pLimit from "p-limit";
import { decodeText } from "./decode.ts";
import { liveUrl } from "./paths.ts";
import { SEC_BUCKET, type TokenBucket } from "./rate-limit.ts";
import { newStats, SourceError, SourceNotFoundError, type Source } from "./source.ts";

/** SEC serves its block page as HTML, sometimes with status 200 (pitfall 43; OpenBB detects "Traffic Limit"). */
const THROTTLE_PAGE = /Request Rate Threshold Exceeded|Traffic Limit|Your Request Originates from an Undeclared Automated Tool/i;

/** Options of an HTTP source; defaults are SEC's limits. */
export interface HttpSourceOptions {
  /** "live" or a mirror root URL. */
  base: string;
  /** "Company Name contact@example.com"; required for live. */
  userAgent?: string;
  /** Concurrent requests in flight (the bucket still spaces their starts). */
  concurrency?: number;
  /** Attempts per file, the first included. */
  attempts?: number;
  timeoutMs?: number;
  /** First backoff step; doubles each retry, with full jitter, capped at maxBackoffMs. */
  backoffMs?: number;
  maxBackoffMs?: number;
  bucket?: TokenBucket;
  /** Called once per retry, for structured logs. */
  onRetry?: (event: { path: string; attempt: number; reason: string; waitMs: number }) => void;
}

/** Creates a live or mirror source. Live without a User-Agent refuses to start. */
export function createHttpSource(options: HttpSourceOptions): Source {
  const live = options.base === "live";
  if (live && !options.userAgent?.trim()) {
    throw new Error(
      'EDGAR_USER_AGENT is not set. SEC requires a declared User-Agent for automated access, e.g.\n' +
        '  export EDGAR_USER_AGENT="Your Company Name you@example.com"',
    );
  }
  const root = live ? "" : options.base.replace(/\/+$/, "");
  const urlOf = (path: string) => (live ? liveUrl(path) : `${root}/${path}`);
  const userAgent = options.userAgent?.trim() || "filing-data-service mirror-client";
  const attempts = options.attempts ?? 6;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const backoffMs = options.backoffMs ?? 500;
  const maxBackoffMs = options.maxBackoffMs ?? 60_000;
  const bucket = options.bucket ?? SEC_BUCKET;
  const limit = pLimit(options.concurrency ?? 8);
  const stats = newStats();

  async function attempt(path: string): Promise<{ text: string } | { retry: string; waitMs?: number }> {
    await bucket.take();
    stats.requests++;
    let response: Response;
    let bytes: Buffer;
    try {
      response = await fetch(urlOf(path), {
        headers: { "User-Agent": userAgent, "Accept-Encoding": "gzip, deflate" },
        signal: AbortSignal.timeout(timeoutMs),
      });
      bytes = Buffer.from(await response.arrayBuffer());
    } catch (error) {
      return { retry: `network: ${(error as Error).cause ?? (error as Error).message}` };
    }
    if (response.status === 404) throw new SourceNotFoundError(path);
    const waitMs = retryAfterMs(response.headers.get("retry-after"));
    if (response.status === 429 || isThrottlePage(bytes.subarray(0, 4096).toString("latin1"))) {
      stats.throttled++;
      const pause = waitMs ?? backoffMs * 4;
      bucket.pause(pause);
      return { retry: `throttled (HTTP ${response.status})`, waitMs: pause };
    }
    if (response.status >= 500) return { retry: `HTTP ${response.status}`, ...(waitMs !== undefined ? { waitMs } : {}) };
    if (!response.ok) throw new SourceError(path, `HTTP ${response.status}`);
    stats.bytes += bytes.length;
    return { text: decodeText(bytes, path) };
  }

  async function get(path: string): Promise<string> {
    let last = "";
    for (let n = 1; n <= attempts; n++) {
      const result = await attempt(path);
      if ("text" in result) return result.text;
      last = result.retry;
      if (n === attempts) break;
      const jittered = Math.random() * Math.min(maxBackoffMs, backoffMs * 2 ** (n - 1));
      const waitMs = Math.min(maxBackoffMs, Math.max(result.waitMs ?? 0, jittered));
      stats.retries++;
      options.onRetry?.({ path, attempt: n, reason: last, waitMs: Math.round(waitMs) });
      await new Promise((r) => setTimeout(r, waitMs));
    }
    throw new SourceError(path, `gave up after ${attempts} attempts (${last})`);
  }

  return {
    name: live ? "live" : root,
    stats,
    describe: urlOf,
    getText: (path) => limit(() => get(path)),
  };
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function retryAfterMs(header: string | null): number | undefined {
  if (!header) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** SEC's block page is an HTML page naming the limit; JSON or XML that mentions it in a string is data. */
export function isThrottlePage(text: string): boolean {
  const head = text.slice(0, 4096);
  return /^\s*<(!doctype html|html)/i.test(head) && THROTTLE_PAGE.test(head);
}
