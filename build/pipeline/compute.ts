// The builder's CPU work — documents.ts: parsing a company's EDGAR JSON, deriving, validating and serialising its
// documents; parsing each Form 4's XML; segment-documents.ts: each periodic report's XBRL and the segments document
// (issue 43) — behind one interface, run inline or on worker threads. Fetching and writing stay on the main thread.
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { encodeDocument, factsDocuments, filingsDocument } from "./documents.ts";
import { EdgarParseError, MalformedInputError, NoXbrlHistoryError, XbrlDocumentError, type ParseSubject } from "../errors.ts";
import { parseOwnershipXml } from "../parse/form4.ts";
import { parseMemberLabels } from "../parse/label-linkbase.ts";
import { periodicReportsOfPage, readSegmentFiling, segmentsDocument } from "./segment-documents.ts";

/** The steps themselves (documents.ts); the worker thread serves exactly these. */
const STEPS = {
  facts: factsDocuments,
  filings: filingsDocument,
  encode: encodeDocument,
  form4: parseOwnershipXml,
  segmentFiling: readSegmentFiling,
  periodicPage: periodicReportsOfPage,
  memberLabels: parseMemberLabels,
  segments: segmentsDocument,
} as const;
type Steps = typeof STEPS;
type Step = keyof Steps;

/** The pure steps of building one company, each answering later; they may throw the parsers' typed errors. */
export type Compute = { [S in Step]: (...args: Parameters<Steps[S]>) => Promise<ReturnType<Steps[S]>> } & { close(): Promise<void> };

/**
 * Each worker's young generation, in MB. V8 sizes it from the machine's memory, and a worker filled it with a
 * company's short-lived objects before each scavenge: 32 MB took the bulk build's peak RSS from 1,040–1,085 MB to
 * 697–801 with no loss of time (bench bulk 2000, alternating: 51.8–60.5 s against 57.8–64.6; 24 MB was slower).
 */
const WORKER_YOUNG_GENERATION_MB = 32;

/** Below this many companies a build computes inline: a worker's start (~0.4 s) would cost more than it saves. */
export const WORKERS_FROM_COMPANIES = 500;

/**
 * The default worker count for a build of `companies`, `concurrency` at a time: one per core, and never more than
 * the companies in flight (each has one step running at a time; every worker is another heap). The main thread
 * mostly waits (on fetches, inflating, writes), so it needs no core of its own: on 2 cores, 2 workers beat 1.
 */
export function defaultWorkers(companies: number, concurrency: number): number {
  return companies < WORKERS_FROM_COMPANIES ? 0 : Math.min(availableParallelism(), concurrency);
}

/** Computes on `workers` threads, or inline when 0. */
export function openCompute(workers: number): Compute {
  if (workers === 0) return computeOver(async (step, args) => runStep(step, args), async () => {});
  const pool = new WorkerPool(workers);
  return computeOver((step, args) => pool.run(step, args), () => pool.close());
}

/** Runs one step where it is called (inline, or inside a worker thread). */
export function runStep(step: Step, args: unknown[]): unknown {
  return (STEPS[step] as (...a: unknown[]) => unknown)(...args);
}

/** A Compute whose every step goes through `run`. */
function computeOver(run: (step: Step, args: unknown[]) => Promise<unknown>, close: () => Promise<void>): Compute {
  const steps = Object.fromEntries((Object.keys(STEPS) as Step[]).map((step) => [step, (...args: unknown[]) => run(step, args)]));
  return { ...steps, close } as Compute;
}

/** A step's outcome as it crosses threads: errors travel as their class name, subject and message. */
export type StepReply = { id: number; value: unknown } | { id: number; error: WireError };
interface WireError {
  name: string;
  message: string;
  subject?: ParseSubject;
  defect?: string;
}

/** Turns a thrown error into what crosses the thread boundary. */
export function toWire(error: unknown): WireError {
  if (error instanceof MalformedInputError) return { name: error.name, message: error.message, subject: error.subject, defect: error.defect };
  if (error instanceof EdgarParseError) return { name: error.name, message: error.message, subject: error.subject };
  return { name: "Error", message: error instanceof Error ? error.message : String(error) };
}

/** The typed errors a step may throw, by name (MalformedInputError is rebuilt with its defect). */
const WIRE_KINDS: Readonly<Record<string, typeof EdgarParseError>> = { NoXbrlHistoryError, XbrlDocumentError, EdgarParseError };

/** Rebuilds the parser's typed error on the main thread, message unchanged, so callers can tell them apart. */
function fromWire(wire: WireError): Error {
  if (wire.name === "MalformedInputError") return new MalformedInputError(wire.subject ?? {}, wire.defect ?? wire.message);
  const Kind = WIRE_KINDS[wire.name] ?? null;
  const error = Kind ? new Kind(wire.subject ?? {}, "") : new Error();
  error.message = wire.message;
  return error;
}

// Node strips the worker's types itself, as the main thread's (Node ≥ 22.18): no loader to register.
const WORKER_ENTRY = new URL("./compute-worker.ts", import.meta.url);

interface Job {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/** Jobs go to the worker with the fewest in flight; a worker that dies fails its jobs and is replaced. */
class WorkerPool {
  readonly #threads: { worker: Worker; jobs: Map<number, Job> }[] = [];
  #nextId = 0;
  #closed = false;

  constructor(size: number) {
    for (let i = 0; i < size; i++) this.#threads.push(this.#spawn());
  }

  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all(this.#threads.map((t) => t.worker.terminate()));
  }

  run(step: Step, args: unknown[]): Promise<unknown> {
    if (this.#closed) return Promise.reject(new Error("the compute pool is closed"));
    const thread = this.#threads.reduce((a, b) => (b.jobs.size < a.jobs.size ? b : a));
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      if (thread.jobs.size === 0) thread.worker.ref(); // a job in flight keeps the process alive until it answers
      thread.jobs.set(id, { resolve, reject });
      thread.worker.postMessage({ id, step, args });
    });
  }

  #spawn(): { worker: Worker; jobs: Map<number, Job> } {
    const thread = { worker: new Worker(WORKER_ENTRY, { resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB } }), jobs: new Map<number, Job>() };
    thread.worker.unref(); // an idle pool never keeps the process alive
    thread.worker.on("message", (reply: StepReply) => {
      const job = thread.jobs.get(reply.id);
      thread.jobs.delete(reply.id);
      if (thread.jobs.size === 0) thread.worker.unref();
      if ("error" in reply) job?.reject(fromWire(reply.error));
      else job?.resolve(reply.value);
    });
    const fail = (error: Error) => {
      for (const job of thread.jobs.values()) job.reject(new Error(`compute worker stopped: ${error.message}`, { cause: error }));
      thread.jobs.clear();
      const i = this.#threads.indexOf(thread);
      if (i >= 0 && !this.#closed) this.#threads[i] = this.#spawn();
    };
    thread.worker.once("error", fail);
    thread.worker.once("exit", (code) => fail(new Error(`exited with code ${code}`)));
    return thread;
  }
}
