// A build's metrics (issue 42): its summary as a node exporter textfile (METRICS_FILE), written atomically when the
// build ends — published or failed — for an operator's node exporter, or CI, to pick up. Each run replaces the last.
import { Gauge, type Registry } from "prom-client";
import { createRegistry, PREFIX, writeMetricsFile } from "../../logging/metrics.ts";
import type { BuildSummary } from "./run.ts";

/** The summary's counts, as gauges named `fds_build_<name>`. */
const COUNTS = {
  tickers: "Tickers built.",
  covered: "Tickers covered.",
  failed: "Tickers whose source failed in this build.",
  kept_previous: "Failed tickers that kept their previous documents.",
  carried_forward: "Tickers of the previous snapshot published again unchanged (a --tickers build).",
  documents_written: "Documents written.",
  documents_unchanged: "Documents unchanged, referenced where an earlier publish wrote them.",
  kept_newer: "Tickers whose document the follower published after this build read them (the follower's kept).",
  form4_fetched: "Form 4 XML files fetched.",
  form4_index_days: "EDGAR daily indexes read.",
} as const satisfies Partial<Record<keyof BuildSummary, string>>;

/** Runs `build` and writes its metrics to `path` (when given) however it ends; the build's own outcome is kept. */
export async function recordBuild(path: string | null, build: Promise<BuildSummary>, now = () => new Date()): Promise<BuildSummary> {
  if (path === null) return build;
  let summary: BuildSummary;
  try {
    summary = await build;
  } catch (error) {
    await writeMetricsFile(path, buildRegistry(null, now()));
    throw error;
  }
  await writeMetricsFile(path, buildRegistry(summary, now()));
  return summary;
}

/** A build's registry: whether it published and when it ended; for a published one, what it built and read. */
export function buildRegistry(summary: BuildSummary | null, endedAt: Date): Registry {
  const registry = createRegistry({ process: false });
  const gauge = (name: string, help: string, value: number, labels: Record<string, string> = {}) => {
    const metric = new Gauge({ name: `${PREFIX}build_${name}`, help, labelNames: Object.keys(labels), registers: [registry] });
    metric.set(labels, value);
  };
  gauge("success", "1 when the last build published a snapshot, 0 when it failed.", summary ? 1 : 0);
  gauge("last_run_timestamp_seconds", "When the last build ended.", endedAt.getTime() / 1000);
  if (!summary) return registry;
  gauge("info", "The snapshot the last build published: 1, its build id as a label.", 1, { build_id: summary.build_id });
  gauge("duration_seconds", "How long the last build took.", summary.seconds);
  gauge("edgar_requests", "Requests the last build made to EDGAR.", summary.requests);
  gauge("pruned_snapshots", "Snapshots the last build pruned.", summary.pruned.length);
  for (const [name, help] of Object.entries(COUNTS)) gauge(name, `${help} (last build)`, summary[name as keyof typeof COUNTS]);
  const notCovered = new Gauge({ name: `${PREFIX}build_not_covered`, help: "Tickers not covered, by reason (last build).", labelNames: ["reason"], registers: [registry] });
  for (const [reason, count] of Object.entries(summary.not_covered)) notCovered.set({ reason }, count ?? 0);
  return registry;
}
