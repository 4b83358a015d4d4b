// The facilitator as the payment core sees it: one deadline per call, and every failure sorted into "the payment is
// refused" (402) or "the facilitator is unavailable" (503) — never a client's bad payment relabelled as an outage.
import { ExactEvmScheme } from "@x402/evm/exact/server";
import {
  FacilitatorResponseError,
  FacilitatorTimeoutError,
  HTTPFacilitatorClient,
  x402ResourceServer,
  type FacilitatorClient,
} from "@x402/core/server";
import type { SupportedResponse } from "@x402/core/types";
import { SettleError, VerifyError } from "@x402/core/types";
import { bazaarResourceServerExtension } from "@x402/extensions/bazaar";
import { paymentIdentifierResourceServerExtension } from "@x402/extensions/payment-identifier";
import { NETWORK } from "../../schemas/api.ts";
import type { EventLog } from "../../logging/log.ts";
import { FacilitatorRejection, httpFacilitator } from "./facilitator-http.ts";

/** An x402 resource server for the exact scheme on Base, with the extensions every PaymentRequired declares. */
export function createResourceServer(facilitator: FacilitatorClient): x402ResourceServer {
  const server = new x402ResourceServer(facilitator).register(NETWORK, new ExactEvmScheme());
  // Without the bazaar extension registered, the HTTP discovery block lacks info.input.method (x402-mcp notes §4).
  server.registerExtension(bazaarResourceServerExtension);
  server.registerExtension(paymentIdentifierResourceServerExtension);
  return server;
}

/**
 * Sends the resource server's reports of a hook that threw to our log, one line each: @x402/core writes them with
 * console.warn from two private methods, replaced here on the instance. A release that renames them fails at start
 * rather than printing again.
 */
export function logHookFailures(server: x402ResourceServer, log: EventLog): void {
  const report = (hook: string, error: unknown) => log("warn", "x402_hook_failed", { hook, error: error instanceof Error ? error.message : String(error) });
  const methods: Record<string, (...args: never[]) => void> = {
    warnResourceServerHookFailure: (phase: string, label: string, error: unknown) => report(`${label} (${phase})`, error),
    warnExtensionHookFailure: (key: string, hook: string, error: unknown) => report(`extension "${key}" ${hook}`, error),
  };
  for (const name of Object.keys(methods)) {
    if (typeof (server as unknown as Record<string, unknown>)[name] !== "function") throw new Error(`@x402/core's resource server has no ${name} to route to the log`);
  }
  Object.assign(server, methods);
}

/** How a facilitator call failed, for the metrics: past its deadline, unreachable or garbled (both 503), refused by it, or a settlement it could not make. */
export type FacilitatorFailure = "timeout" | "unavailable" | "rejected" | "settlement_failed";

/** Told of every facilitator call once it ends: its duration, and its failure (null when it answered, valid or not). */
export type FacilitatorObserver = (operation: string, seconds: number, failure: FacilitatorFailure | null) => void;

/**
 * Wraps a facilitator: each call ends within `timeoutMs`; a protocol verdict (VerifyError, SettleError) and a
 * FacilitatorRejection (402) pass through; anything else is a FacilitatorResponseError (503). An
 * HTTPFacilitatorClient is spoken to through our own client (facilitator-http.ts), with its URL and credentials.
 * `/supported` is asked until it first answers, then remembered: what a facilitator supports does not change while
 * it runs, and @x402/core would print a failed ask to the console. `observe` is told of each call (issue 42).
 */
export function guardFacilitator(given: FacilitatorClient, timeoutMs: number, observe: FacilitatorObserver = () => {}): FacilitatorClient {
  const http = given instanceof HTTPFacilitatorClient;
  const inner = http ? httpFacilitator({ url: given.url, headers: async (path) => (await given.createAuthHeaders(path)).headers }, timeoutMs) : given;
  let supported: SupportedResponse | null = null;
  // Our HTTP client aborts its own request at the deadline (freeing the socket): only other clients need a timer.
  const bounded: Bounded = http ? (_operation, run) => run() : withDeadline(timeoutMs);
  const guard = <T>(operation: string, run: () => Promise<T>): Promise<T> => {
    const start = performance.now();
    const seconds = () => (performance.now() - start) / 1000;
    return bounded(operation, run).then(
      (answer) => {
        // A settlement that did not happen is a failure whether the client returns it or throws it (SettleError).
        observe(operation, seconds(), operation === "settle" && (answer as { success?: boolean }).success === false ? "settlement_failed" : null);
        return answer;
      },
      (error: unknown) => {
        const sorted = classify(operation, error);
        observe(operation, seconds(), failureOf(sorted));
        throw sorted;
      },
    );
  };
  return {
    verify: (payload, requirements) => guard("verify", () => inner.verify(payload, requirements)),
    settle: (payload, requirements) => guard("settle", () => inner.settle(payload, requirements)),
    getSupported: async () => (supported ??= await guard("supported", () => inner.getSupported())),
  };
}

/** A facilitator call made to end within a deadline. */
type Bounded = <T>(operation: string, run: () => Promise<T>) => Promise<T>;

/** Races each call against a timer: for facilitator clients that cannot abort their own requests. */
function withDeadline(timeoutMs: number): Bounded {
  return (operation, run) => {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new FacilitatorTimeoutError(operation, timeoutMs)), timeoutMs);
    });
    return Promise.race([run(), deadline]).finally(() => clearTimeout(timer));
  };
}

/** What a sorted failure counts as; a verify verdict (the payment is invalid) is the facilitator answering, not failing. */
function failureOf(error: Error): FacilitatorFailure | null {
  if (error instanceof FacilitatorTimeoutError) return "timeout";
  if (error instanceof FacilitatorResponseError) return "unavailable";
  if (error instanceof FacilitatorRejection) return "rejected";
  return error instanceof SettleError ? "settlement_failed" : null;
}

/** Sorts a failed facilitator call (see guardFacilitator). */
function classify(operation: string, error: unknown): Error {
  if (error instanceof FacilitatorResponseError || error instanceof VerifyError || error instanceof SettleError || error instanceof FacilitatorRejection) return error;
  return new FacilitatorResponseError(`Facilitator ${operation} failed: ${error instanceof Error ? error.message : String(error)}`);
}
