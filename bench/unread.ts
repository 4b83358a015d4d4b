// Benchmark: clients that never read their answers (issue 39). The gateway as deployed (its own process) serves a
// normal keyed client throughout while non-reading clients pipeline requests at it, first without a key (402s),
// then with one (large answers); then a minute with the normal client alone. The floor beside them: the normal client
// while a process that only spins takes one core, as the attacker's own work does. Goals: the gateway's RSS ≤ 400 MB
// throughout and after, the keyed client's p99 ≤ 50 ms during the attacks, RSS back within 10 % of its start a
// minute after the attacks stop (levels: the median RSS over the last 20 s of the warm-up and of that minute).
import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import autocannon from "autocannon";
import { KeyStore } from "../gateway/payment/keys.ts";
import { openStorage } from "../storage/open.ts";
import { startGatewayProcess } from "../test/_gateway-process.ts";
import { buildTestData } from "../test/_gateway.ts";
import { flag } from "./_server-process.ts";
import { loadAverage, median, processCpuMs, processRssMb, round2 } from "./_stats.ts";

/** The normal client's question: an answer of a few kilobytes. */
const NORMAL_PATH = "/earnings/summary?ticker=WMT&period=annual";
/** The keyed attack's question: Apple's statements with every value they have had (about 1.7 MB). */
const LARGE_PATH = "/financials?ticker=AAPL&history=true";
/** The unkeyed attack's: a paid route without payment (a 402 with its PAYMENT-REQUIRED header). */
const UNPAID_PATH = "/earnings/summary?ticker=AAPL";

/** `--warm-seconds N` (default 60), `--attack-seconds N` per attack (20), `--after-seconds N` (60), `--sockets N` unkeyed (50). */
export async function run(args: string[]): Promise<Record<string, unknown>> {
  const warmSeconds = Number(flag(args, "--warm-seconds") ?? 60);
  const attackSeconds = Number(flag(args, "--attack-seconds") ?? 20);
  const afterSeconds = Number(flag(args, "--after-seconds") ?? 60);
  const sockets = Number(flag(args, "--sockets") ?? 50);
  const { dataDir, mirror } = await buildTestData();
  const { key } = await new KeyStore(openStorage(dataDir)).create("bench-unread");
  const gateway = await startGatewayProcess({ DATA_URL: dataDir });
  const pid = gateway.child.pid!;
  const rss = () => processRssMb(pid);
  /** Runs a phase and adds the share of a core the gateway used during it. */
  const measured = async (phase: Promise<[autocannon.Result, Record<string, unknown>]>): Promise<[autocannon.Result, Record<string, unknown>, number]> => {
    const [t0, cpu0] = [performance.now(), processCpuMs(pid)];
    const out = await phase;
    return [...out, round2((processCpuMs(pid) - cpu0) / (performance.now() - t0))];
  };
  const samples: { at: number; mb: number }[] = [];
  const sampler = setInterval(() => samples.push({ at: performance.now(), mb: rss() }), 200);
  /** The median RSS over the last `seconds` (the gateway's level then, not one sample's). */
  const level = (seconds: number) => median(samples.filter((x) => x.at >= performance.now() - seconds * 1000).map((x) => x.mb));
  const port = new URL(gateway.url).port;
  const normal = (seconds: number) =>
    autocannon({ url: `${gateway.url}${NORMAL_PATH}`, connections: 10, overallRate: 500, duration: seconds, headers: { authorization: `Bearer ${key}` } });
  try {
    // The start is the gateway at its level under normal traffic: it has served what the attacks ask for (the large
    // answer's document is in its cache), and a minute of the normal client has grown its heap to where that traffic
    // keeps it (a gateway just started holds ~60 MB less, which any traffic adds).
    const [warm] = await Promise.all([
      normal(warmSeconds),
      autocannon({ url: `${gateway.url}${LARGE_PATH}`, connections: 4, duration: 5, headers: { authorization: `Bearer ${key}` } }),
      autocannon({ url: `${gateway.url}${UNPAID_PATH}`, connections: 4, duration: 5 }),
    ]);
    const start = level(20);
    const from = samples.length;
    const floor = await measured(Promise.all([normal(attackSeconds), spinner(attackSeconds)]));
    const unkeyed = await measured(Promise.all([normal(attackSeconds), attacker(port, UNPAID_PATH, sockets, attackSeconds)]));
    const keyed = await measured(Promise.all([normal(attackSeconds), attacker(port, LARGE_PATH, 10, attackSeconds, key)]));
    const after = await normal(afterSeconds);
    const end = level(20);
    const peak = Math.max(...samples.slice(from).map((x) => x.mb));
    const phase = ([result, attack, cores]: [autocannon.Result, Record<string, unknown>, number]) => ({
      p99_ms: result.latency.p99,
      rps: Math.round(result.requests.average),
      errors: result.errors + result.timeouts + result.non2xx,
      gateway_cores: cores,
      attack,
    });
    return {
      load_average: loadAverage(),
      rss_start_mb: Math.round(start),
      rss_peak_mb: Math.round(peak),
      rss_after_mb: Math.round(end),
      rss_after_ratio: round2(end / start),
      p99_alone_ms: warm.latency.p99,
      floor_one_core_busy: phase(floor),
      unkeyed: phase(unkeyed),
      keyed: phase(keyed),
      p99_after_ms: after.latency.p99,
      goal: "rss_peak_mb <= 400, unkeyed and keyed p99_ms <= 50, rss_after_ratio <= 1.1",
    };
  } finally {
    clearInterval(sampler);
    gateway.child.kill("SIGKILL");
    for (const dir of [dataDir, mirror]) rmSync(dir, { recursive: true, force: true });
  }
}

/** A process that only spins for `seconds`: one core taken, as the attacker's own writing takes one. */
function spinner(seconds: number): Promise<Record<string, unknown>> {
  const child = spawn(process.execPath, ["-e", `const until = Date.now() + ${seconds * 1000}; while (Date.now() < until);`], { stdio: "ignore" });
  return new Promise((resolve) => child.once("exit", () => resolve({ spun_s: seconds })));
}

/** Runs bench/_unread-client.ts in its own process and returns what it printed. */
function attacker(port: string, path: string, sockets: number, seconds: number, key?: string): Promise<Record<string, unknown>> {
  const child = spawn(process.execPath, ["bench/_unread-client.ts", port, path, String(sockets), String(seconds), ...(key ? [key] : [])], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => (code === 0 ? resolve(JSON.parse(out) as Record<string, unknown>) : reject(new Error(`attacker exited with ${code}`))));
  });
}
