// The operator CLI: `dataset build | follow | inspect TICKER | audit | report` (contract: DESIGN "Commands").
// Exit 0 on success, 1 when a build publishes nothing or an audit has findings — a failed company is one — (or
// warnings, with --strict), 2 on a usage error.
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { reportKey } from "../../storage/layout.ts";
import { describeLocation, openStorage } from "../../storage/open.ts";
import { auditSnapshot } from "./audit.ts";
import { readPublished } from "../publish/snapshot.ts";
import { renderReport } from "./report.ts";
import { inspectTicker } from "./inspect.ts";
import { createLogger } from "../../logging/log.ts";
import { loadBuildConfig } from "../config.ts";
import { createProgress } from "./progress.ts";
import { follow } from "../follow/follower.ts";
import { holderId } from "../publish/publish.ts";
import { runBuild } from "../pipeline/run.ts";
import { SharedBudget } from "../sources/budget.ts";
import { openSource } from "../sources/open.ts";
import type { TokenBucket } from "../sources/rate-limit.ts";
import { LeaseHeldError } from "../../storage/lease.ts";
import type { Storage } from "unstorage";

const USAGE = `usage:
  dataset build   [--source live|http://host:port|dir:PATH|bulk:PATH] [--out DEST] [--tickers A,B,… [--universe-only]]
                  [--form4-source live|http://host:port|dir:PATH] [--lookback-days 730] [--retention 4] [--concurrency 4] [--workers N]
  dataset follow  [--source live|http://host:port] [--data DEST] [--poll-ms 3000] [--feed-types ""] [--concurrency 4]
                  [--retention 4] [--standby]
  dataset inspect TICKER [--data DEST]
  dataset audit   [--data DEST] [--strict]
  dataset report  [--data DEST]     (writes snapshots/<build_id>/report.html beside the published snapshot)
DEST is a folder, fs:PATH or s3://bucket/prefix (with S3_ENDPOINT and the AWS variables); default $DATA_URL or data/.
--tickers rebuilds those tickers and carries every other ticker of the published snapshot forward unchanged; with --universe-only the new snapshot holds those tickers alone.
bulk:PATH reads submissions.zip and companyfacts.zip in PATH; Form 4 XML and daily indexes come from --form4-source.
audit exits 1 on findings: a snapshot that is not sound, or a company that failed in the build that last tried it
(each failed ticker named, with the file or accession, the reason and since when its documents are stale); with
--strict also on warnings (a covered ticker a --tickers build carried forward, marked series exceptions).
follow keeps the published snapshot fresh: it polls EDGAR's latest-filings feed (every form by default; --feed-types
4,10-K,… polls those feeds instead) and publishes what each new filing changes within seconds, until SIGINT/SIGTERM.
It needs a published snapshot (build first) and holds the store's writer lease; a second follower exits, with
--standby it waits and takes over when the first stops. Builds and followers on one store share SEC's request budget.`;

/** Runs the CLI with `argv` (without node and script) and returns the exit code. */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let args;
  try {
    args = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        source: { type: "string" },
        "form4-source": { type: "string" },
        strict: { type: "boolean" },
        out: { type: "string" },
        data: { type: "string" },
        tickers: { type: "string" },
        "universe-only": { type: "boolean" },
        "lookback-days": { type: "string" },
        retention: { type: "string" },
        concurrency: { type: "string" },
        workers: { type: "string" },
        "poll-ms": { type: "string" },
        "feed-types": { type: "string" },
        standby: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const [command, ...rest] = args.positionals;
  const { values } = args;
  if (values.help || !command) {
    console.log(USAGE);
    return values.help ? 0 : 2;
  }
  let config;
  try {
    config = loadBuildConfig(env);
  } catch (error) {
    console.error(`dataset ${command} failed: ${(error as Error).message}`);
    return 1;
  }
  const log = createLogger(config.logLevel);
  const dest = values.out ?? values.data ?? config.dataUrl;
  const store = () => openStorage(dest, config.storageEnv);
  try {
    if (command === "build") {
      const tickers = values.tickers?.split(",").map((t) => t.trim()).filter(Boolean);
      // An empty list is a mistake, never "every ticker": that is a 30-minute crawl of live EDGAR (issue 42).
      if (tickers && !tickers.length) throw new UsageError(`--tickers names no ticker: give one or more, as --tickers AAPL,MSFT (leave --tickers out to build every ticker of company_tickers.json)`);
      if (values["universe-only"] && !tickers) throw new UsageError("--universe-only needs --tickers: the tickers that make the new universe");
      const numbers = { lookbackDays: values["lookback-days"], retention: values.retention, concurrency: values.concurrency };
      const parsed = Object.fromEntries(Object.entries(numbers).map(([k, v]) => [k, v === undefined ? undefined : positiveInt(k, v)]));
      const workers = values.workers === undefined ? undefined : positiveInt("workers", values.workers, 0);
      const storage = store();
      const spec = values.source ?? config.source;
      const budget = await joinBudget(storage, "build", 1, [spec, values["form4-source"] ?? "live"], log);
      const source = openSource(spec, config.userAgent, { onRetry: (e) => log.log("warn", "retry", e), ...(budget ? { bucket: budget.bucket } : {}) }, values["form4-source"]);
      const progress = createProgress(log);
      const summary = await runBuild({
        source,
        storage,
        log,
        ...(tickers ? { tickers, universeOnly: values["universe-only"] ?? false } : {}),
        ...(parsed.lookbackDays ? { lookbackDays: parsed.lookbackDays } : {}),
        ...(parsed.retention ? { retention: parsed.retention } : {}),
        ...(parsed.concurrency ? { concurrency: parsed.concurrency } : {}),
        ...(workers === undefined ? {} : { workers }),
        onProgress: progress.update,
      }).finally(async () => {
        await source.close?.();
        await budget?.leave();
      });
      const notCovered = Object.entries(summary.not_covered).map(([r, n]) => `${n} ${r}`).join(", ") || "none";
      console.log(
        `published ${summary.build_id}: ${summary.tickers} tickers${summary.carried_forward ? ` built (${summary.carried_forward} more carried forward unchanged)` : ""}, ` +
          `${summary.covered} covered, not covered: ${notCovered}; ` +
          `${summary.failed} failed (${summary.failed ? `${named(summary.failed_tickers)}; ` : ""}${summary.kept_previous} kept their previous documents); ${summary.requests} requests ` +
          `(${summary.form4_fetched} Form 4s fetched, ${summary.form4_index_days} daily indexes) in ${summary.seconds}s`,
      );
      for (const { ticker, why } of summary.not_built) console.log(`${ticker}: ${why}`);
      console.log(JSON.stringify({ summary }));
      return 0;
    }
    if (command === "follow") {
      const storage = store();
      const spec = values.source ?? config.source;
      if (!/^(live|https?:\/\/)/.test(spec)) throw new UsageError(`follow reads EDGAR's live feed: --source must be live or http://host:port (a mirror with a feed), not "${spec}"`);
      const numbers = { pollMs: values["poll-ms"], retention: values.retention, concurrency: values.concurrency };
      const parsed = Object.fromEntries(Object.entries(numbers).map(([k, v]) => [k, v === undefined ? undefined : positiveInt(k, v)]));
      const budget = await joinBudget(storage, "follow", 2, [spec], log);
      const source = openSource(spec, config.userAgent, { onRetry: (e) => log.log("warn", "retry", e), ...(budget ? { bucket: budget.bucket } : {}) });
      const stop = new AbortController();
      for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => stop.abort());
      try {
        const summary = await follow({
          source,
          storage,
          log,
          signal: stop.signal,
          standby: values.standby ?? false,
          ...(values["feed-types"] !== undefined ? { feedTypes: values["feed-types"].split(",").map((t) => t.trim()) } : {}),
          ...(parsed.pollMs ? { pollMs: parsed.pollMs } : {}),
          ...(parsed.retention ? { retention: parsed.retention } : {}),
          ...(parsed.concurrency ? { concurrency: parsed.concurrency } : {}),
          ...config.followTiming,
        });
        console.log(`follow stopped: ${summary.polls} polls, ${summary.publishes} publishes, ${summary.filings} filings, ${summary.documents_written} documents written, ${summary.requests} requests`);
        console.log(JSON.stringify({ summary }));
        return 0;
      } catch (error) {
        if (!(error instanceof LeaseHeldError)) throw error;
        console.error(`dataset follow: ${error.message}.\nOnly one writer publishes to a store: stop the other follower, or run this one with --standby to take over when it stops.`);
        return 1;
      } finally {
        await budget?.leave();
      }
    }
    if (command === "inspect") {
      if (!rest[0]) throw new UsageError("inspect needs a TICKER");
      console.log(await inspectTicker(store(), rest[0]));
      return 0;
    }
    if (command === "audit") {
      const report = await auditSnapshot(store(), { strict: values.strict === true });
      for (const finding of report.findings) console.log(`FINDING ${finding}`);
      for (const warning of report.warnings) console.log(`WARNING ${warning}`);
      console.log(
        `audit ${report.build_id ?? "-"}: ${report.tickers} tickers, ${report.covered} covered, ${report.failed.length} failed${report.failed.length ? ` (${named(report.failed)})` : ""}, ${report.findings.length} findings, ${report.warnings.length} warnings` +
          (values.strict ? " (strict: warnings fail)" : ""),
      );
      return report.findings.length || (values.strict && report.warnings.length) ? 1 : 0;
    }
    if (command === "report") {
      const storage = store();
      const published = await readPublished(storage);
      if (!published) throw new Error("nothing is published yet: run `npm run dataset -- build` first");
      const key = reportKey(published.pointer.build_id);
      await storage.setItemRaw(key, new TextEncoder().encode(renderReport(published.manifest)));
      const where = describeLocation(dest, config.storageEnv);
      console.log(`report written to ${where.kind === "fs" ? join(where.display, key) : `${dest.replace(/\/+$/, "")}/${key}`}`);
      return 0;
    }
    throw new UsageError(`unknown command "${command}"`);
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`${error.message}\n${USAGE}`);
      return 2;
    }
    log.log("error", "failed", { command, error: (error as Error).message });
    console.error(`dataset ${command} failed: ${(error as Error).message}`);
    return 1;
  }
}

class UsageError extends Error {}

/** How many tickers a summary line names before "N more". */
const NAMED_TICKERS = 10;

/** "A, B, …, N more": the tickers a count on a summary line is made of (`dataset audit` names every one, with why). */
function named(tickers: readonly string[]): string {
  const more = tickers.length > NAMED_TICKERS ? `, ${tickers.length - NAMED_TICKERS} more` : "";
  return `${tickers.slice(0, NAMED_TICKERS).join(", ")}${more}`;
}

/**
 * SEC's budget, shared with the other builder processes of the store when `specs` reach EDGAR over HTTP (live or a
 * mirror); undefined for folders and archives, which make no requests.
 */
async function joinBudget(storage: Storage, role: string, weight: number, specs: string[], log: ReturnType<typeof createLogger>): Promise<(SharedBudget & { bucket: TokenBucket }) | undefined> {
  if (!specs.some((s) => /^(live|https?:\/\/)/.test(s))) return undefined;
  return SharedBudget.join(storage, {
    id: holderId(role),
    role,
    weight,
    onChange: (share) => log.log("info", "request_budget", { role, slots: share.slots, requests_per_s: Math.round(share.rate * 10) / 10, processes: share.processes }),
  });
}

function positiveInt(name: string, value: string, min = 1): number {
  if (!/^\d+$/.test(value) || Number(value) < min) {
    throw new UsageError(`--${name} must be a ${min === 0 ? "whole number (0 or more)" : "positive whole number"}, got "${value}"`);
  }
  return Number(value);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) process.exitCode = await main(process.argv.slice(2));
