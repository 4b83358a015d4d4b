// One compute worker thread: runs the steps of compute.ts that the main thread posts, one message each, and
// sends back the value or the error.
import { parentPort } from "node:worker_threads";
import { runStep, toWire, type StepReply } from "./compute.ts";

parentPort!.on("message", ({ id, step, args }: { id: number; step: Parameters<typeof runStep>[0]; args: unknown[] }) => {
  let reply: StepReply;
  try {
    reply = { id, value: runStep(step, args) };
  } catch (error) {
    reply = { id, error: toWire(error) };
  }
  // A document's bytes move to the main thread instead of being copied.
  parentPort!.postMessage(reply, "value" in reply ? transferable(reply.value) : []);
});

/** The document bytes in a step's value (itself, its `bytes`, or its documents' `bytes`). */
function transferable(value: unknown): ArrayBuffer[] {
  if (value instanceof Uint8Array) return [value.buffer as ArrayBuffer];
  if (typeof value !== "object" || value === null) return [];
  const out: ArrayBuffer[] = [];
  for (const part of [value, ...Object.values(value)]) {
    const bytes = (part as { bytes?: unknown } | null)?.bytes;
    if (bytes instanceof Uint8Array) out.push(bytes.buffer as ArrayBuffer);
  }
  return out;
}
