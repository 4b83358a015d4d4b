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
  const value = "value" in reply ? (reply.value as { bytes?: unknown } | Uint8Array) : null;
  const bytes = value instanceof Uint8Array ? value : value?.bytes instanceof Uint8Array ? value.bytes : null;
  parentPort!.postMessage(reply, bytes ? [bytes.buffer as ArrayBuffer] : []);
});
