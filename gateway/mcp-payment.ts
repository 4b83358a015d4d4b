// Payment for MCP tools: the subscription key from the MCP request's Authorization header, or x402 over the
// MCP transport (specs/transports-v2/mcp.md): an unpaid call is an isError result carrying PaymentRequired, the
// payment arrives in `_meta["x402/payment"]`, the receipt leaves in `_meta["x402/payment-response"]`.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { FacilitatorResponseError, type x402ResourceServer } from "@x402/core/server";
import type { PaymentPayload, PaymentRequirements, SettleResponse } from "@x402/core/types";
import { NETWORK, type PaidRoute } from "../schemas/api.ts";
import { ApiError } from "./errors.ts";
import type { KeyStore } from "./keys.ts";
import { presentedKey } from "./payment.ts";

/** How a tool call was paid for. */
export type ToolTicket = { kind: "key" } | { kind: "x402"; payload: PaymentPayload; requirements: PaymentRequirements };

/** A tool call that ends without data: an error result to return as is. */
export class ToolRefusal extends Error {
  readonly result: CallToolResult;
  constructor(result: CallToolResult) {
    super("tool refusal");
    this.result = result;
  }
}

/** Checks and settles payment for paid tools, over the same resource server, prices and payTo as HTTP. */
export class ToolPayments {
  readonly #keys: KeyStore;
  readonly #server: x402ResourceServer;
  readonly #payTo: string;
  readonly #ready: () => Promise<void>;

  constructor(keys: KeyStore, server: x402ResourceServer, payTo: string, ready: () => Promise<void>) {
    this.#keys = keys;
    this.#server = server;
    this.#payTo = payTo;
    this.#ready = ready;
  }

  /** A key (401 as an ApiError when bad) or a verified x402 payment; throws ToolRefusal (payment required). */
  async require(route: PaidRoute, headers: Headers, meta: Record<string, unknown> | undefined): Promise<ToolTicket> {
    const key = presentedKey(headers);
    if (key !== null) {
      if (await this.#keys.verify(key)) return { kind: "key" };
      throw new ApiError("invalid_api_key", "The API key is not valid.");
    }
    return this.#facilitated(async () => {
      await this.#ready();
      const accepts = await this.#requirements(route);
      const payload = meta?.["x402/payment"] as PaymentPayload | undefined;
      if (!payload || typeof payload !== "object") throw await this.#paymentRequired(route, accepts, "Payment required");
      const matched = this.#server.findMatchingRequirements(accepts, payload);
      if (!matched) throw await this.#paymentRequired(route, accepts, "The payment does not match this tool's requirements");
      const verified = await this.#server.verifyPayment(payload, matched);
      if (!verified.isValid) throw await this.#paymentRequired(route, accepts, verified.invalidReason ?? "invalid payment");
      return { kind: "x402", payload, requirements: matched };
    });
  }

  /** Settles an x402 ticket; the receipt goes into the result's `_meta`. A failed settlement is a ToolRefusal. */
  async settle(route: PaidRoute, ticket: ToolTicket): Promise<SettleResponse | null> {
    if (ticket.kind === "key") return null;
    return this.#facilitated(async () => {
      let settled: SettleResponse;
      try {
        settled = await this.#server.settlePayment(ticket.payload, ticket.requirements);
      } catch (error) {
        if (error instanceof FacilitatorResponseError) throw error;
        settled = { success: false, errorReason: (error as Error).message, transaction: "", network: NETWORK } as SettleResponse;
      }
      if (!settled.success) {
        const refusal = await this.#paymentRequired(route, await this.#requirements(route), `settlement failed: ${settled.errorReason}`);
        refusal.result._meta = { "x402/payment-response": settled };
        throw refusal;
      }
      return settled;
    });
  }

  #requirements(route: PaidRoute): Promise<PaymentRequirements[]> {
    return this.#server.buildPaymentRequirements({ scheme: "exact", network: NETWORK, payTo: this.#payTo, price: route.price, maxTimeoutSeconds: 300 });
  }

  async #paymentRequired(route: PaidRoute, accepts: PaymentRequirements[], reason: string): Promise<ToolRefusal> {
    const required = await this.#server.createPaymentRequiredResponse(
      accepts,
      { url: `mcp://tool/${route.tool}`, description: route.summary, mimeType: "application/json" },
      reason,
    );
    const structured = required as unknown as Record<string, unknown>;
    return new ToolRefusal({ isError: true, structuredContent: structured, content: [{ type: "text", text: JSON.stringify(required) }] });
  }

  async #facilitated<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (error instanceof FacilitatorResponseError) {
        throw new ApiError("facilitator_unavailable", "The payment facilitator did not answer in time.");
      }
      throw error;
    }
  }
}
