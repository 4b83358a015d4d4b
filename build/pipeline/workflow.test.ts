import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

const FILE = join(import.meta.dirname, "..", "..", ".github", "workflows", "build.yml");
const SECRETS = ["S3_ENDPOINT", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "DATA_URL", "EDGAR_USER_AGENT"];

interface Step {
  run?: string;
  uses?: string;
  "continue-on-error"?: boolean;
}

describe("the scheduled build workflow (.github/workflows/build.yml)", () => {
  const text = readFileSync(FILE, "utf8");
  const workflow = parse(text) as {
    on: { schedule: { cron: string }[]; workflow_dispatch: unknown };
    concurrency: { group: string; "cancel-in-progress": boolean };
    jobs: Record<string, { env: Record<string, string>; steps: Step[] }>;
  };
  const [job] = Object.values(workflow.jobs);
  const runs = job!.steps.map((s) => s.run ?? "");

  it("runs twice a day and on demand", () => {
    expect(workflow.on.schedule).toHaveLength(1);
    const [, hours] = workflow.on.schedule[0]!.cron.split(" ");
    expect(hours!.split(",")).toHaveLength(2);
    expect("workflow_dispatch" in workflow.on).toBe(true);
  });

  it("never overlaps: one concurrency group, a running build is not cancelled", () => {
    expect(workflow.concurrency.group).toBeTruthy();
    expect(workflow.concurrency["cancel-in-progress"]).toBe(false);
  });

  it("publishes to the S3-compatible store from repository secrets", () => {
    for (const name of SECRETS) expect(job!.env[name]).toBe(`\${{ secrets.${name} }}`);
    const build = runs.findIndex((r) => /npm run dataset -- build .*--out "\$DATA_URL"/.test(r));
    expect(build).toBeGreaterThanOrEqual(0);
    expect(runs[build]).toMatch(/--source live/);
  });

  it("audits after publishing, and an audit finding fails the run", () => {
    const build = runs.findIndex((r) => r.includes("dataset -- build"));
    const audit = runs.findIndex((r) => r.includes("dataset -- audit"));
    expect(audit).toBeGreaterThan(build);
    expect(runs[audit]).toMatch(/--data "\$DATA_URL"/);
    expect(job!.steps[audit]!["continue-on-error"]).toBeUndefined();
  });

  it("keeps the Form 4 cache between runs: it lives in the persisted store, and says so", () => {
    expect(text).toMatch(/cache\/form4\//);
    expect(runs.join("\n")).not.toMatch(/rm -rf|--out data\b/);
  });
});
