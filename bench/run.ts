// Benchmark runner: `npm run bench -- NAME` runs bench/NAME.ts; `npm run bench` runs them all.
// Each benchmark exports `run()` and its result is printed last as one JSON line {"bench": NAME, …}.
import { readdirSync } from "node:fs";
import { join } from "node:path";

/** The contract of a benchmark module. */
export interface Benchmark {
  run(args: string[]): Promise<Record<string, unknown>>;
}

// The benchmarks that run s3rver (follow) list more than 1,000 keys: s3rver signs its listing continuation tokens with
// DES, which OpenSSL 3 keeps in its legacy provider (vitest.config.ts passes the same flag to the tests).
if (!process.execArgv.includes("--openssl-legacy-provider")) {
  const { spawnSync } = await import("node:child_process");
  const child = spawnSync(process.execPath, ["--openssl-legacy-provider", ...process.execArgv, ...process.argv.slice(1)], { stdio: "inherit" });
  process.exit(child.status ?? 1);
}

const dir = import.meta.dirname;
const all = readdirSync(dir)
  .filter((f) => f.endsWith(".ts") && !f.startsWith("_") && f !== "run.ts")
  .map((f) => f.slice(0, -3))
  .sort();

const [name, ...rest] = process.argv.slice(2);
if (name === "--help" || name === "-h") {
  console.log(`usage: npm run bench -- [NAME [ARGS…]]   (no NAME: every benchmark)\nbenchmarks: ${all.join(", ")}\nEach prints one JSON line last; what each measures and its latest figures: docs/benchmarks.md.`);
  process.exit(0);
}
if (name && !all.includes(name)) {
  console.error(`unknown benchmark "${name}"; available: ${all.join(", ")}`);
  process.exit(2);
}
for (const bench of name ? [name] : all) {
  const mod = (await import(join(dir, `${bench}.ts`))) as Benchmark;
  const result = await mod.run(rest);
  console.log(JSON.stringify({ bench, ...result }));
}
