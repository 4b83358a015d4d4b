// The gateway as deployed — `node gateway/cli.ts` in a process of its own, on a free port — for tests and benchmarks
// that run it beside other processes sharing its store.
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";

export interface GatewayProcess {
  url: string;
  child: ChildProcess;
  /** Its log so far, one parsed JSON line each, and every line as written (stderr). */
  lines: { event: string; [field: string]: unknown }[];
  text: string[];
}

/** Starts the gateway over `env` (added to this process's environment); resolves once it logs where it listens. */
export async function startGatewayProcess(env: Record<string, string>): Promise<GatewayProcess> {
  const child = spawn(process.execPath, ["gateway/cli.ts", "--port", "0"], {
    env: { ...process.env, PUBLIC_BASE_URL: "https://api.example.test", LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  const lines: GatewayProcess["lines"] = [];
  const text: string[] = [];
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stderr! }).on("line", (line) => {
      text.push(line);
      const entry = JSON.parse(line) as GatewayProcess["lines"][number];
      lines.push(entry);
      if (entry.event === "listening") resolve((entry.url as string).replace(/\/$/, ""));
    });
    child.once("exit", (code) => reject(new Error(`gateway exited with ${code}`)));
  });
  return { url, child, lines, text };
}
