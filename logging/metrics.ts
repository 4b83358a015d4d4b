// Prometheus metrics for the gateway, the follower and the builder (issue 42): a prom-client registry per program,
// served in Prometheus' text format on a listener of its own (loopback unless told otherwise: never the public port), or
// written as a node exporter textfile. Counters a hot path bumps are plain numbers, handed to prom-client when scraped.
import { rename, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { collectDefaultMetrics, Counter, Registry, type Metric } from "prom-client";
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

/** One label set of a tally: a plain number a hot path adds to, once its caller holds it. */
export class CounterSeries {
  readonly labels: Record<string, string>;
  value = 0;

  constructor(labels: Record<string, string>) {
    this.labels = labels;
  }

  /** Adds `n` (1 by default). */
  add(n = 1): void {
    this.value += n;
  }
}

/**
 * A counter bumped on a hot path: each label set's total is a plain number (a CounterSeries, which a caller may keep),
 * handed to prom-client's counter when the registry is scraped — prom-client hashes the labels on every increment.
 */
export class TallyCounter {
  readonly #series = new Map<string, CounterSeries>();

  constructor(registry: Registry, name: string, help: string, labelNames: readonly string[]) {
    const series = this.#series;
    new Counter({
      name,
      help,
      labelNames,
      registers: [registry],
      collect() {
        this.reset();
        for (const { labels, value } of series.values()) this.inc(labels, value);
      },
    });
  }

  /** The series `key` names (the label values joined); `labels` is asked for only the first time a key is seen. */
  series(key: string, labels: () => Record<string, string>): CounterSeries {
    let series = this.#series.get(key);
    if (!series) this.#series.set(key, (series = new CounterSeries(labels())));
    return series;
  }

  /** Adds `n` to the series `key` names. */
  add(key: string, n: number, labels: () => Record<string, string>): void {
    this.series(key, labels).add(n);
  }
}

/** One label set of a TallyHistogram: its buckets' counts (not cumulative), their sum and count, as plain numbers. */
export class HistogramSeries {
  readonly labels: Record<string, string>;
  readonly #bounds: readonly number[];
  /** Observations per bucket; the last is past every bound (+Inf). */
  readonly counts: number[];
  sum = 0;
  count = 0;

  constructor(labels: Record<string, string>, bounds: readonly number[]) {
    this.labels = labels;
    this.#bounds = bounds;
    this.counts = new Array<number>(bounds.length + 1).fill(0);
  }

  /** Counts `value` in the first bucket whose bound holds it. */
  observe(value: number): void {
    const bounds = this.#bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]!) i++;
    this.counts[i]!++;
    this.sum += value;
    this.count++;
  }
}

/**
 * A histogram observed on a hot path: each label set's buckets are plain numbers (a HistogramSeries, which a caller
 * keeps), read as a histogram when the registry is scraped — prom-client's Histogram hashes the labels and allocates on
 * every observation (2.4 % of the gateway's keyed call, issue 42). It is shaped as prom-client's registry reads a
 * metric: its name, help, type, and get() giving the `_bucket` (with `le`), `_sum` and `_count` samples.
 */
export class TallyHistogram {
  readonly name: string;
  readonly help: string;
  readonly type = "histogram";
  readonly aggregator = "sum";
  readonly #bounds: readonly number[];
  readonly #series = new Map<string, HistogramSeries>();

  constructor(registry: Registry, name: string, help: string, bounds: readonly number[]) {
    this.name = name;
    this.help = help;
    this.#bounds = bounds;
    registry.registerMetric(this as unknown as Metric);
  }

  /** The series `key` names (the label values joined); `labels` is asked for only the first time a key is seen. */
  series(key: string, labels: () => Record<string, string>): HistogramSeries {
    let series = this.#series.get(key);
    if (!series) this.#series.set(key, (series = new HistogramSeries(labels(), this.#bounds)));
    return series;
  }

  /** The samples, as prom-client's registry formats them. */
  async get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: { labels: Record<string, string | number>; value: number; metricName: string }[] }> {
    const values = [];
    for (const { labels, counts, sum, count } of this.#series.values()) {
      let cumulative = 0;
      for (let i = 0; i <= this.#bounds.length; i++) {
        cumulative += counts[i]!;
        values.push({ labels: { ...labels, le: i < this.#bounds.length ? this.#bounds[i]! : "+Inf" }, value: cumulative, metricName: `${this.name}_bucket` });
      }
      values.push({ labels, value: sum, metricName: `${this.name}_sum` }, { labels, value: count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}
