// The follower's metrics (issue 42), served on its own METRICS_PORT: how far behind EDGAR the published snapshot is
// (each filing's lag from seen in the feed to published, the feed position, what waits), its pace against EDGAR, what
// it did (polls, publishes, filings, documents), and — through its log — what failed.
import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import { PREFIX } from "../../logging/metrics.ts";
import type { FollowerStatus } from "../../schemas/snapshot.ts";

/** What the metrics read of a running follower when scraped. */
export interface FollowView {
  status: FollowerStatus;
  /** What it has done since it started. */
  done: { polls: number; publishes: number; filings: number; documents_written: number };
  /** EDGAR requests its source has made since it started. */
  requests: number;
}

/** Lag buckets (s): a filing is published seconds after EDGAR lists it, or minutes when its data lags (confirmWithinMs). */
const LAG_BUCKETS = [1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 900, 1800];

/** The follower's metrics in `registry`: counts and gauges read from `view` when scraped, lags observed as published. */
export class FollowMetrics {
  readonly #lag: Histogram;

  constructor(registry: Registry, view: () => FollowView) {
    const registers = [registry];
    const counted = (name: string, help: string, value: (v: FollowView) => number) =>
      new Counter({
        name: `${PREFIX}follow_${name}`,
        help,
        registers,
        collect() {
          this.reset();
          this.inc(value(view()));
        },
      });
    const gauged = (name: string, help: string, value: (v: FollowView) => number | null) =>
      new Gauge({
        name: `${PREFIX}follow_${name}`,
        help,
        registers,
        collect() {
          this.reset();
          const v = value(view());
          if (v !== null) this.set(v);
        },
      });
    counted("polls_total", "Polls of EDGAR's latest-filings feed.", (v) => v.done.polls);
    counted("publishes_total", "Snapshots published.", (v) => v.done.publishes);
    counted("filings_published_total", "Filings published (each confirmed for every company it names).", (v) => v.done.filings);
    counted("documents_written_total", "Documents written by its publishes.", (v) => v.done.documents_written);
    counted("edgar_requests_total", "Requests made to EDGAR (its rate: rate() of this; SEC allows 10 a second, shared).", (v) => v.requests);
    gauged("edgar_requests_per_second", "Requests to EDGAR a second since it started.", (v) => v.status.requests_per_s);
    gauged("queued_filings", "Filings seen and not yet published.", (v) => v.status.queued);
    gauged("gaps", "Spans of the feed not yet filled from submissions or daily indexes.", (v) => v.status.gaps);
    gauged("position_timestamp_seconds", "The feed position published so far (acceptance time).", (v) => seconds(v.status.through));
    gauged("last_poll_timestamp_seconds", "When it last polled the feed.", (v) => seconds(v.status.last_poll_at));
    gauged("last_publish_timestamp_seconds", "When it last published.", (v) => seconds(v.status.last_publish_at));
    new Gauge({
      name: `${PREFIX}follow_lag_recent_seconds`,
      help: "Lag from seen in the feed to published over the last hour: its median (0.5), 99th percentile (0.99) and maximum (1).",
      labelNames: ["quantile"],
      registers,
      collect() {
        this.reset();
        const { p50, p99, max } = view().status.lag_s;
        for (const [quantile, value] of [["0.5", p50], ["0.99", p99], ["1", max]] as const) if (value !== null) this.set({ quantile }, value);
      },
    });
    this.#lag = new Histogram({ name: `${PREFIX}follow_lag_seconds`, help: "Each published filing's lag from seen in the feed to published.", buckets: LAG_BUCKETS, registers });
  }

  /** Filings just published, with their lags (s). */
  published(lags: readonly number[]): void {
    for (const lag of lags) this.#lag.observe(lag);
  }
}

function seconds(iso: string | null): number | null {
  return iso === null ? null : Date.parse(iso) / 1000;
}
