// The facilitator as the payment core sees it: one deadline per call, and every failure sorted into "the payment is
// refused" (402) or "the facilitator is unavailable" (503) — never a client's bad payment relabelled as an outage.
import { ExactEvmScheme } from "@x402/evm/exact/server";
import { FacilitatorResponseError, FacilitatorTimeoutError, x402ResourceServer, type FacilitatorClient } from "@x402/core/server";
import type { SupportedResponse } from "@x402/core/types";
import { SettleError, VerifyError } from "@x402/core/types";
import { bazaarResourceServerExtension } from "@x402/extensions/bazaar";
import { paymentIdentifierResourceServerExtension } from "@x402/extensions/payment-identifier";
import { NETWORK } from "../../schemas/api.ts";

/** The facilitator answered 4xx without a protocol verdict: it refuses this payment, it is not down. */
export class FacilitatorRejection extends Error {
  override readonly name = "FacilitatorRejection";
}

/** An x402 resource server for the exact scheme on Base, with the extensions every PaymentRequired declares. */
export function createResourceServer(facilitator: FacilitatorClient): x402ResourceServer {
  const server = new x402ResourceServer(facilitator).register(NETWORK, new ExactEvmScheme());
  // Without the bazaar extension registered, the HTTP discovery block lacks info.input.method (x402-mcp notes §4).
  server.registerExtension(bazaarResourceServerExtension);
  server.registerExtension(paymentIdentifierResourceServerExtension);
  return server;
}

/**
 * Wraps a facilitator: each call ends within `timeoutMs`; a protocol verdict (VerifyError, SettleError) passes
 * through; a 400 or 422 without one is a FacilitatorRejection (402); a network error, a 5xx, a timeout or a malformed
 * reply is a FacilitatorResponseError (503). `/supported` is asked until it first answers, then remembered: what a
 * facilitator supports does not change while it runs, and @x402/core would print a failed ask to the console.
 */
export function guardFacilitator(inner: FacilitatorClient, timeoutMs: number): FacilitatorClient {
  let supported: SupportedResponse | null = null;
  const guard = <T>(operation: string, run: () => Promise<T>): Promise<T> => {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new FacilitatorTimeoutError(operation, timeoutMs)), timeoutMs);
    });
    return Promise.race([run(), deadline])
      .catch((error: unknown) => {
        throw classify(operation, error);
      })
      .finally(() => clearTimeout(timer));
  };
  return {
    verify: (payload, requirements) => guard("verify", () => inner.verify(payload, requirements)),
    settle: (payload, requirements) => guard("settle", () => inner.settle(payload, requirements)),
    getSupported: async () => (supported ??= await guard("supported", () => inner.getSupported())),
  };
}

/** Sorts a failed facilitator call (see guardFacilitator). */
function classify(operation: string, error: unknown): Error {
  if (error instanceof FacilitatorResponseError || error instanceof VerifyError || error instanceof SettleError) return error;
  const message = error instanceof Error ? error.message : String(error);
  // HTTPFacilitatorClient's wording for a non-2xx answer without a verdict: "Facilitator verify failed (400): …".
  const status = /^Facilitator \w+ failed \((\d{3})\)/.exec(message)?.[1];
  // 400/422 judge the payment; 401/403 (our credentials), 408, 429 and 5xx are the facilitator's side.
  if (status === "400" || status === "422") {
    return new FacilitatorRejection(`facilitator_rejected_payment (${operation} answered ${status})`);
  }
  return new FacilitatorResponseError(`Facilitator ${operation} failed: ${message}`);
}
