// Prometheus metrics for the gateway, the follower and the builder (issue 42): a prom-client registry per program,
// served in Prometheus' text format on a listener of its own (loopback unless told otherwise: never the public port), or
// written as a node exporter textfile. Counters a hot path bumps are plain numbers, handed to prom-client when scraped.
import { rename, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { collectDefaultMetrics, Counter, Registry } from "prom-client";
import type { EventLog } from "./log.ts";

/** Every metric of this service is named `fds_…` (filing data service); the process metrics keep their usual names. */
export const PREFIX = "fds_";

/** Where a program serves its metrics: a host (loopback by default) and a port (0: any free one, logged). */
export interface MetricsAddress {
  host: string;
  port: number;
}

/** A running metrics listener. */
export interface MetricsListener {
  /** `http://host:port/metrics`. */
  url: string;
  close(): Promise<void>;
}

/** A registry for one program; a long-running one also reports its process (CPU, memory, event loop, handles). */
export function createRegistry(options: { process: boolean }): Registry {
  const registry = new Registry();
  if (options.process) collectDefaultMetrics({ register: registry });
  return registry;
}

/**
 * Serves `registry` at GET /metrics on its own listener, apart from any public port: what a program serves and earns
 * is for its operator's scraper only. Anything else is 404 (405 for another method on /metrics).
 */
export async function serveMetrics(registry: Registry, address: MetricsAddress, log: EventLog): Promise<MetricsListener> {
  const server = createServer((request, response) => {
    const path = (request.url ?? "/").split("?")[0];
    if (path !== "/metrics") return void response.writeHead(404, { "content-type": "text/plain" }).end("not found: metrics are at /metrics\n");
    if (request.method !== "GET" && request.method !== "HEAD") return void response.writeHead(405, { allow: "GET, HEAD" }).end();
    registry.metrics().then(
      (text) => response.writeHead(200, { "content-type": registry.contentType, "cache-control": "no-store" }).end(request.method === "HEAD" ? undefined : text),
      (error: Error) => {
        log("error", "metrics_failed", { error: error.message });
        response.writeHead(500, { "content-type": "text/plain" }).end("metrics could not be collected\n");
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(address.port, address.host, () => (server.off("error", reject), resolve()));
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${address.host.includes(":") ? `[${address.host}]` : address.host}:${port}/metrics`;
  log("info", "metrics_listening", { url });
  return {
    url,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()).closeAllConnections()),
  };
}

/**
 * Writes `registry` to `path` in the text format node exporter's textfile collector reads, atomically: a temporary file
 * beside it (not named *.prom, so the collector never reads it half written), then renamed over it.
 */
export async function writeMetricsFile(path: string, registry: Registry): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    await writeFile(temporary, await registry.metrics());
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/**
 * A log that also counts its warn and error lines by event (`fds_log_events_total{level, event}`): what went wrong,
 * and how often, from a scrape alone. Event names are the code's own, so the label's values stay few.
 */
export function countEvents<L extends string>(registry: Registry, log: (level: L, event: string, fields?: Record<string, unknown>) => void): typeof log {
  const events = new TallyCounter(registry, `${PREFIX}log_events_total`, "Warn and error log lines, by level and event.", ["level", "event"]);
  return (level, event, fields) => {
    if (level === "warn" || level === "error") events.add(`${level} ${event}`, 1, () => ({ level, event }));
    log(level, event, fields);
  };
}

/**
 * A counter bumped on a hot path: each label set's total is a plain number here (no hashing of labels, no allocation
 * once seen), handed to prom-client's counter when the registry is scraped.
 */
export class TallyCounter {
  readonly #totals = new Map<string, { labels: Record<string, string>; value: number }>();

  constructor(registry: Registry, name: string, help: string, labelNames: readonly string[]) {
    const totals = this.#totals;
    new Counter({
      name,
      help,
      labelNames,
      registers: [registry],
      collect() {
        this.reset();
        for (const { labels, value } of totals.values()) this.inc(labels, value);
      },
    });
  }

  /** Adds `n` to the label set `key` names; `labels` is asked for only the first time a key is seen. */
  add(key: string, n: number, labels: () => Record<string, string>): void {
    const total = this.#totals.get(key);
    if (total) total.value += n;
    else this.#totals.set(key, { labels: labels(), value: n });
  }
}
