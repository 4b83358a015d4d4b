// Drives test/_stalled-writer.ts: a writer process caught mid-write (its temp file written, not renamed), to release
// or to kill there.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";

/** A writer of `key` in the folder store `dir`, holding its temp file until released or killed. */
export interface StalledWriter {
  /** Resolves once its temp file is written and held. */
  inFlight: Promise<void>;
  /** Lets it rename the temp file into place. */
  release(): void;
  /** Its last line when it exited: "written" when its write ended whole; undefined when killed. */
  done: Promise<string | undefined>;
  /** Kills it (SIGKILL) where it stands, leaving its temp file. */
  kill(): Promise<void>;
}

/** Starts a writer of `key` into the folder store `dir`, which stalls mid-write. */
export function stalledWriter(dir: string, key: string): StalledWriter {
  const child = spawn(process.execPath, [join(import.meta.dirname, "_stalled-writer.ts"), dir, key], { stdio: ["pipe", "pipe", "inherit"] });
  const lines: string[] = [];
  let held!: () => void;
  const inFlight = new Promise<void>((resolve) => (held = resolve));
  createInterface({ input: child.stdout! }).on("line", (line) => {
    lines.push(line);
    if (line === "in flight") held();
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    inFlight,
    release: () => child.stdin!.end("go\n"),
    done: exited.then(() => (child.signalCode ? undefined : lines.at(-1))),
    async kill() {
      child.kill("SIGKILL");
      await exited;
    },
  };
}
