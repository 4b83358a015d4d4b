// One call as its request's log line and the gateway's metrics tell it (issue 42): the route (and MCP tool) it called,
// how it was paid — an API key by its id (its hash's first 12 hex digits, as `npm run keys -- list` shows), an x402
// payment by its payer's address, or free — and what came of the payment. Never a key, a signature or a payload.
import { usdToAtomic, type PaidRoute } from "../../schemas/api.ts";
import type { SettleResponse } from "@x402/core/types";
import { asApiError } from "../http/errors.ts";
import type { Transport } from "./offers.ts";

/** How a call was paid: a key, an x402 payment, nothing presented on a paid route, or a free route. */
export type PaidBy = "key" | "x402" | "none" | "free";

/**
 * What came of a call's payment: a key accepted; an x402 payment settled; an answer kept for its payment identifier
 * served again; a payment verified but not charged (an empty answer, or one that failed); refused (402, 401, 429,
 * 409); or the facilitator or the store unavailable (503). `failed` is anything else (the service's own error).
 */
export type PaymentOutcome = "key" | "settled" | "kept_answer" | "not_charged" | "refused" | "unavailable" | "failed";

/** What an MCP tool call returned: its answer, a refusal asking for payment, or an error result. */
export type ToolResult = "ok" | "payment_required" | "error";

/** A paid or free call's record; the transports open it, the payment core (or the keyed fast path) fills it in. */
export class CallRecord {
  readonly route: string;
  readonly transport: Transport;
  /** The MCP tool called; null over HTTP. */
  readonly tool: string | null;
  paidBy: PaidBy = "none";
  keyId: string | null = null;
  /** The payer an x402 authorization names (lower case). */
  payer: string | null = null;
  outcome: PaymentOutcome | null = null;
  /** The settlement's transaction: this call's, or the original one of a kept answer. */
  tx: string | null = null;
  /** USDC this call settled, in atomic units (6 decimals). */
  atomic = 0;
  /** Why the payment was refused or not charged, or the error code of a failure. */
  reason: string | null = null;
  /** The snapshot the answer came from. */
  snapshot: string | null = null;
  /** A tool call's result as MCP returns it; null over HTTP (the status says). */
  result: ToolResult | null = null;

  constructor(route: string, transport: Transport, tool: string | null, paidBy: PaidBy = "none") {
    this.route = route;
    this.transport = transport;
    this.tool = tool;
    this.paidBy = paidBy;
  }

  /** The usual keyed call, answered from memory (no payment core): the key verified moments ago. */
  keyed(keyId: string, snapshot: string): void {
    this.paidBy = "key";
    this.keyId = keyId;
    this.outcome = "key";
    this.snapshot = snapshot;
  }

  /** What the call presented, as the payment core read it: a key (by id), an x402 payer, or nothing. */
  presented(paidBy: PaidBy, keyId: string | null, payer: string | null): void {
    this.paidBy = paidBy;
    this.keyId = keyId;
    this.payer = payer;
  }

  /** A paid call answered: settled, served again from its kept answer, not charged (empty), or a key's. */
  served(receipt: SettleResponse | null, replayed: boolean, route: PaidRoute): void {
    if (receipt?.success) {
      this.outcome = replayed ? "kept_answer" : "settled";
      this.tx = receipt.transaction;
      // The exact scheme settles the route's price; a scheme that settles less says how much (receipt.amount).
      if (!replayed) this.atomic = Number(receipt.amount ?? usdToAtomic(route.price));
    } else if (this.paidBy === "key") {
      this.outcome = "key";
    } else {
      this.outcome = "not_charged";
      this.reason = "empty_answer";
    }
  }

  /** A paid call not answered: a refusal's reason (402), or an error sorted by its status. */
  failed(refusal: string | null, error: unknown): void {
    if (refusal !== null) {
      this.outcome = "refused";
      this.reason = refusal;
      return;
    }
    const api = asApiError(error);
    this.reason = api.code;
    this.outcome = api.status === 503 ? "unavailable" : api.status < 500 ? "refused" : "failed";
  }

  /** A tool call's result: an answer, a payment asked for (again), or an error (its code kept when nothing else was). */
  toolDone(result: ToolResult, error?: unknown): void {
    this.result = result;
    if (result === "error" && this.reason === null) this.reason = asApiError(error).code;
  }

  /** Writes this call's fields of its request's log line into `line` (absent ones left out), and returns it. */
  fields(line: Record<string, unknown>): Record<string, unknown> {
    if (this.tool !== null) line.tool = this.tool;
    if (this.result !== null) line.result = this.result;
    line.paid_by = this.paidBy;
    if (this.keyId !== null) line.key_id = this.keyId;
    if (this.payer !== null) line.payer = this.payer;
    if (this.outcome !== null) line.payment = this.outcome;
    if (this.tx !== null) line.tx = this.tx;
    if (this.atomic) line.usd = this.atomic / 1e6;
    if (this.reason !== null) line.reason = this.reason;
    if (this.snapshot !== null) line.snapshot = this.snapshot;
    return line;
  }
}
