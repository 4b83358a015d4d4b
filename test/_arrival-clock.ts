// Arrivals as a remote server sees them: a TCP pass-through to a loopback server, in a process of its own so that
// the busy test process (which serves the replay, builds and reads snapshots) cannot bunch the times it records. It
// notes the moment each HTTP request's first bytes reach it; the request-rate tests read their peak from here.
import { fork, type ChildProcess } from "node:child_process";
import { createConnection, createServer, type AddressInfo } from "node:net";

export interface ArrivalClock {
  /** The pass-through's base URL: give it to the clients in place of the server's. */
  url: string;
  /** Largest number of requests that arrived within any one-second window. */
  maxPerSecond(): Promise<number>;
  close(): Promise<void>;
}

/** Starts the pass-through to `target` (http://host:port) in a child process. */
export async function startArrivalClock(target: string): Promise<ArrivalClock> {
  const child = fork(new URL(import.meta.url), ["--arrival-clock", target], { execArgv: [], stdio: ["ignore", "ignore", "inherit", "ipc"] });
  const port = await reply<number>(child, "port");
  return {
    url: `http://127.0.0.1:${port}`,
    maxPerSecond: async () => peak(await reply<number[]>(child, "arrivals")),
    close: async () => void (child.kill(), await new Promise((r) => child.once("exit", r))),
  };
}

function reply<T>(child: ChildProcess, ask: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: { [k: string]: unknown }) => ask in m && (child.off("message", onMessage), resolve(m[ask] as T));
    child.on("message", onMessage);
    child.once("exit", (code) => reject(new Error(`arrival clock exited (${code})`)));
    if (ask !== "port") child.send(ask);
  });
}

/** The most arrivals in any window of one second (times in ms). */
export function peak(times: readonly number[]): number {
  let max = 0;
  for (let i = 0, j = 0; j < times.length; j++) {
    while (times[j]! - times[i]! >= 1000) i++;
    max = Math.max(max, j - i + 1);
  }
  return max;
}

// The child: clients send one request per write with no pipelining (fetch's default), so a chunk that opens with a
// request line is one arrival.
if (process.argv[2] === "--arrival-clock") {
  const upstream = new URL(process.argv[3]!);
  const arrivals: number[] = [];
  const server = createServer((client) => {
    const target = createConnection(Number(upstream.port), upstream.hostname);
    client.on("data", (chunk: Buffer) => {
      if (/^(?:GET|HEAD|POST|PUT|DELETE|OPTIONS|PATCH) \//.test(chunk.toString("latin1", 0, 10))) arrivals.push(performance.now());
      target.write(chunk);
    });
    target.pipe(client);
    client.on("end", () => target.end());
    client.on("error", () => target.destroy());
    target.on("error", () => client.destroy());
  });
  server.listen(0, "127.0.0.1", () => process.send!({ port: (server.address() as AddressInfo).port }));
  process.on("message", (m) => m === "arrivals" && process.send!({ arrivals }));
  process.on("disconnect", () => process.exit(0));
}
