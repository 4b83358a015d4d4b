// A loopback HTTP server serving ../shared/edgar in EDGAR's URL layout, with injectable faults
// (429 + Retry-After, 503, slow answers, truncated bodies, connection resets, SEC's block page) and a request log.
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { resolve, sep } from "node:path";
import { peak } from "./_arrival-clock.ts";
import { EDGAR_DIR } from "./_edgar.ts";

/** What the server does to one request instead of (or before) answering it normally. */
export type Fault =
  | { kind: "status"; status: number; retryAfter?: string }
  | { kind: "slow"; ms: number }
  | { kind: "truncate" }
  | { kind: "reset" }
  | { kind: "throttle-page" };

/** Decides a fault per request: `n` counts the requests for that path so far, from 1. */
export type FaultPlan = (path: string, n: number) => Fault | undefined;

export interface Mirror {
  url: string;
  /** Every request: arrival time (ms, monotonic), path, user agent. */
  log: { at: number; path: string; userAgent: string }[];
  setFaults(plan: FaultPlan | undefined): void;
  /** Largest number of requests that arrived within any one-second window (from log entry `from` on). */
  maxPerSecond(from?: number): number;
  close(): Promise<void>;
}

const BLOCK_PAGE = `<!DOCTYPE html><html><head><title>SEC.gov | Request Rate Threshold Exceeded</title></head>
<body><h1>Your Request Originates from an Undeclared Automated Tool</h1><p>Traffic Limit exceeded</p></body></html>`;

/**
 * Answers a request instead of the folder: bytes (200), null (404), or undefined to serve the file as it is. The
 * replaying EDGAR (test/_edgar-replay.ts) makes its feed, submissions, company facts and indexes here.
 */
export type Serve = (path: string, url: URL) => Promise<Buffer | null | undefined>;

/** Starts the mirror on 127.0.0.1 over `root` (the shared EDGAR folder by default). */
export async function startMirror(root = EDGAR_DIR, serve?: Serve): Promise<Mirror> {
  const base = resolve(root);
  const log: Mirror["log"] = [];
  const counts = new Map<string, number>();
  let plan: FaultPlan | undefined;

  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const path = decodeURIComponent(url.pathname.slice(1));
    log.push({ at: performance.now(), path, userAgent: String(req.headers["user-agent"] ?? "") });
    const n = (counts.get(path) ?? 0) + 1;
    counts.set(path, n);
    const fault = plan?.(path, n);
    if (fault?.kind === "reset") return req.socket.destroy();
    if (fault?.kind === "status") {
      res.writeHead(fault.status, { "content-type": "text/plain", ...(fault.retryAfter ? { "retry-after": fault.retryAfter } : {}) });
      return res.end(`fault ${fault.status}`);
    }
    if (fault?.kind === "throttle-page") {
      res.writeHead(200, { "content-type": "text/html" });
      return res.end(BLOCK_PAGE);
    }
    if (fault?.kind === "slow") await new Promise((r) => setTimeout(r, fault.ms));
    const file = resolve(base, path);
    let body: Buffer;
    try {
      const made = await serve?.(path, url);
      if (made === null) throw new Error("not served");
      if (!file.startsWith(base + sep)) throw new Error("outside");
      body = made ?? (await readFile(file));
    } catch {
      res.writeHead(404, { "content-type": "text/plain" });
      return res.end("not found");
    }
    const type = path.endsWith(".json") ? "application/json" : path.startsWith("cgi-bin/") ? "application/atom+xml" : "text/plain";
    res.writeHead(200, { "content-type": type, "content-length": body.length });
    if (fault?.kind === "truncate") {
      res.write(body.subarray(0, Math.floor(body.length / 2)));
      return req.socket.destroy();
    }
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    log,
    setFaults: (p) => {
      plan = p;
      counts.clear();
    },
    maxPerSecond: (from = 0) => peak(log.slice(from).map((e) => e.at)),
    close: () => new Promise((r) => server.close(() => r())),
  };
}
