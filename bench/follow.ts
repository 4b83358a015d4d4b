// Benchmark: freshness end to end. A replaying loopback EDGAR (test/_edgar-replay.ts) accepts real filings of the
// fixtures' covered companies — the newest ones, mostly Form 4s, as they came — at a realistic rate and then at a
// peak rate, while the follower (`dataset follow`, default settings, its own process) publishes to S3 (s3rver behind
// the conditional-write stand-in) and the gateway (`gateway/cli.ts`, its own process, SNAPSHOT_POLL_MS as deployed)
// serves paid answers from it. Measured per filing: from EDGAR's acceptance to the first paid answer containing it
// (/filings/latest, asked four times a second per company with outstanding filings); per phase: EDGAR requests in
// any one second, and object-store writes per filing (PUTs, counted at the stand-in); and the same lag to the market
// feed across companies (/market/filings, issue 40). Real time, no compressed clock.
// ../shared/edgar holds the XML of only a few of these Form 4s: the follower still fetches each one (a request, then a
// 404 it records), so the request and lag figures are a Form 4's, while most insider documents do not change.
import { runBuild } from "../build/pipeline/run.ts";
import { createHttpSource } from "../build/sources/http.ts";
import { TokenBucket } from "../build/sources/rate-limit.ts";
import { main as keys } from "../gateway/payment/keys-cli.ts";
import { openStorage } from "../storage/open.ts";
import { makeOverlayMirror } from "../test/_edgar.ts";
import { memoryLogger } from "../test/_logger.ts";
import { startReplay, type EdgarReplay } from "../test/_edgar-replay.ts";
import { startGatewayProcess } from "../test/_gateway-process.ts";
import { spawnFollower } from "../test/_follower.ts";
import { removeDir, startConditionalS3, startS3 } from "../test/_s3.ts";
import { flag } from "./_server-process.ts";
import { loadAverage, round2 } from "./_stats.ts";

// The fixtures' covered companies (JNJ through the test overlay's synthetic company facts).
const COMPANIES: Record<number, string> = { 320193: "AAPL", 104169: "WMT", 354950: "HD", 1744489: "DIS", 1336917: "UA", 1835632: "MRVL", 63908: "MCD", 97476: "TXN", 200406: "JNJ" };

interface Phase {
  name: string;
  perMinute: number;
  minutes: number;
}

/** The gateway's snapshot poll, as deployed (gateway/config.ts's default). */
const SNAPSHOT_POLL_MS = 5000;

/** `--realistic-minutes N` (1) at 10 filings a minute, then `--peak-minutes N` (2) at 100 a minute. */
export async function run(args: string[]): Promise<Record<string, unknown>> {
  const phases: Phase[] = [
    { name: "realistic", perMinute: 10, minutes: Number(flag(args, "--realistic-minutes") ?? 1) },
    { name: "peak", perMinute: 100, minutes: Number(flag(args, "--peak-minutes") ?? 2) },
  ];
  const total = phases.reduce((n, p) => n + Math.round(p.perMinute * p.minutes), 0);
  const root = makeOverlayMirror();
  const replay = await startReplay(root, Object.keys(COMPANIES).map(Number), total);
  const s3 = await startS3();
  const store = await startConditionalS3(s3);
  const location = `s3://${s3.bucket}/follow-bench`;
  const env = { ...store.env, AWS_ACCESS_KEY_ID: "S3RVER", AWS_SECRET_ACCESS_KEY: "S3RVER" };
  const children: { kill(signal?: NodeJS.Signals): boolean }[] = [];
  try {
    await runBuild({ source: createHttpSource({ base: replay.url, bucket: new TokenBucket(1000), backoffMs: 5 }), storage: openStorage(location, env), log: memoryLogger(), tickers: Object.values(COMPANIES).concat("UAA"), workers: 0 });
    let key = "";
    await keys(["create", "--label", "bench", "--data", location], env, (line) => void (key = line));
    const gateway = await startGatewayProcess({ ...env, DATA_URL: location, SNAPSHOT_POLL_MS: String(SNAPSHOT_POLL_MS), FREE_RATE_PER_MINUTE: "0" });
    children.push(gateway.child);
    const follower = spawnFollower(["--source", replay.url, "--data", location], { ...env, LOG_LEVEL: "warn" });
    children.push(follower.child);
    await new Promise((r) => setTimeout(r, 2_000)); // its first poll
    const results: Record<string, PhaseResult> = {};
    for (const phase of phases) {
      results[phase.name] = await runPhase(phase, replay, store.requests, gateway.url, key);
      // Each phase in full on a line of its own; the last line is the peak's figures the issue names, in its order.
      console.log(JSON.stringify({ phase: phase.name, per_minute: phase.perMinute, ...results[phase.name], follower_settings: "defaults (poll every 3 s, every form)", snapshot_poll_ms: SNAPSHOT_POLL_MS, load_average: loadAverage() }));
    }
    const { filings, lag_p50_s, lag_p99_s, lag_max_s, market_lag_p99_s, market_missed, max_requests_per_s, writes_per_filing, missed } = results.peak!;
    return { filings, lag_p50_s, lag_p99_s, lag_max_s, market_lag_p99_s, market_missed, max_requests_per_s, writes_per_filing, missed };
  } finally {
    for (const child of children) child.kill("SIGKILL");
    await replay.close();
    await store.stop();
    await s3.close();
    removeDir(root);
  }
}

interface PhaseResult {
  filings: number;
  form4s: number;
  lag_p50_s: number | null;
  lag_p99_s: number | null;
  lag_max_s: number | null;
  /** From acceptance to the first /market/filings answer containing it (issue 40). */
  market_lag_p99_s: number | null;
  market_missed: number;
  max_requests_per_s: number;
  requests_per_filing: number;
  writes_per_filing: number;
  manifest_and_pointer_per_filing: number;
  writes: Record<string, number>;
  missed: number;
}

/** Accepts the phase's filings at its rate while a checker finds each one in a paid answer. */
async function runPhase(phase: Phase, replay: EdgarReplay, requests: { method: string; path: string }[], gateway: string, key: string): Promise<PhaseResult> {
  const count = Math.round(phase.perMinute * phase.minutes);
  const filings = replay.held().slice(0, count);
  const fromLog = replay.log.length;
  const fromRequests = requests.length;
  const accepted = new Map<string, number>();
  const found = new Map<string, number>();
  let accepting = true;
  let lastAccepted = Date.now();
  // The same filings found in the market feed across companies (issue 40): the gateway lays each company the follower
  // publishes over the last full build's feeds.
  const inMarket = new Map<string, number>();
  const marketChecker = (async () => {
    while (accepting || inMarket.size < accepted.size) {
      const since = new Date().toISOString().slice(0, 10);
      for (let offset: number | null = 0; offset !== null; ) {
        const res = await fetch(`${gateway}/market/filings?since=${since}&limit=500&offset=${offset}`, { headers: { "x-api-key": key } });
        const at = Date.now();
        const body = (await res.json()) as { data?: { accession_number: string }[]; meta?: { next_offset?: number | null } };
        for (const f of body.data ?? []) if (accepted.has(f.accession_number) && !inMarket.has(f.accession_number)) inMarket.set(f.accession_number, at);
        offset = body.meta?.next_offset ?? null;
      }
      if (!accepting && Date.now() - lastAccepted > 120_000) break;
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  const checker = (async () => {
    while (accepting || found.size < accepted.size) {
      const outstanding = new Set([...accepted.keys()].filter((a) => !found.has(a)).map((a) => COMPANIES[replay.filing(a).cik]!));
      await Promise.all(
        [...outstanding].map(async (ticker) => {
          const res = await fetch(`${gateway}/filings/latest?ticker=${ticker}&limit=100`, { headers: { "x-api-key": key } });
          const at = Date.now();
          const body = (await res.json()) as { data?: { accession_number: string }[] };
          for (const f of body.data ?? []) if (accepted.has(f.accession_number) && !found.has(f.accession_number)) found.set(f.accession_number, at);
        }),
      );
      if (!accepting && Date.now() - lastAccepted > 120_000) break; // missed: not in any answer two minutes later
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  const spacing = 60_000 / phase.perMinute;
  const start = Date.now();
  for (const [i, filing] of filings.entries()) {
    await new Promise((r) => setTimeout(r, Math.max(0, start + i * spacing - Date.now())));
    lastAccepted = Date.now();
    replay.accept(filing.accession, new Date(lastAccepted));
    accepted.set(filing.accession, lastAccepted);
  }
  accepting = false;
  await Promise.all([checker, marketChecker]);
  await new Promise((r) => setTimeout(r, 3_000)); // the follower's last lease renewal and publish of the phase
  const lags = [...found].map(([a, at]) => (at - accepted.get(a)!) / 1000).sort((x, y) => x - y);
  const pick = (q: number, of = lags) => (of.length ? round2(of[Math.min(of.length - 1, Math.floor(q * of.length))]!) : null);
  const marketLags = [...inMarket].map(([a, at]) => (at - accepted.get(a)!) / 1000).sort((x, y) => x - y);
  const writes = classify(requests.slice(fromRequests).filter((r) => r.method === "PUT"));
  const documentsAndOthers = Object.entries(writes).filter(([k]) => k !== "manifest" && k !== "pointer").reduce((n, [, v]) => n + v, 0);
  return {
    filings: count,
    form4s: filings.filter((f) => f.form === "4" || f.form === "4/A").length,
    lag_p50_s: pick(0.5),
    lag_p99_s: pick(0.99),
    lag_max_s: lags.length ? round2(lags.at(-1)!) : null,
    market_lag_p99_s: pick(0.99, marketLags),
    market_missed: count - inMarket.size,
    max_requests_per_s: replay.maxPerSecond(fromLog),
    requests_per_filing: round2((replay.log.length - fromLog) / count),
    writes_per_filing: round2(documentsAndOthers / count),
    manifest_and_pointer_per_filing: round2(((writes.manifest ?? 0) + (writes.pointer ?? 0)) / count),
    writes,
    missed: count - found.size,
  };
}

/** Object-store PUTs by what they wrote. */
function classify(puts: { path: string }[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const { path } of puts) {
    const kind = /\/manifest\.json$/.test(path)
      ? "manifest"
      : /\/current\.json$/.test(path)
        ? "pointer"
        : /\/tickers\//.test(path)
          ? "documents"
          : /\/cache\/form4\//.test(path)
            ? "form4_cache"
            : /\/leases\//.test(path)
              ? "lease"
              : /\/budget\//.test(path)
                ? "budget"
                : "other";
    out[kind] = (out[kind] ?? 0) + 1;
  }
  return out;
}
