// The gateway's one payment core, for HTTP routes and MCP tools alike: a subscription key or an x402 payment; a
// payment verified once (never while the same authorization is in flight), released on any failure before the
// answer, settled only for an answer with data, and kept for idempotent retries; a refused one costs its sender.
// Transports only read and render.
import { FacilitatorResponseError, type FacilitatorClient, type x402ResourceServer } from "@x402/core/server";
import type { PaymentRequired, PaymentRequirements, SettleResponse } from "@x402/core/types";
import { SettleError, VerifyError } from "@x402/core/types";
import type { PaidRoute } from "../../schemas/api.ts";
import type { KeptAnswer } from "../../schemas/payment.ts";
import { ApiError } from "../http/errors.ts";
import type { CallRecord } from "./call-record.ts";
import type { KeyStore } from "./keys.ts";
import type { EventLog } from "../../logging/log.ts";
import { logHookFailures } from "./facilitator.ts";
import { FacilitatorRejection } from "./facilitator-http.ts";
import { IDEMPOTENCY_WINDOW_MS, IdempotentAnswers } from "./idempotency.ts";
import { PAYMENT_REQUIRED, type PaymentOffers, type Transport } from "./offers.ts";
import type { PaymentReading, PresentedPayment } from "./payload.ts";
import { RefusalLimit, type Sender } from "./refusal-limit.ts";
import { windowRefusal } from "./window.ts";

/** What the core needs of an answer: its bytes, and how many rows its `data` holds (none: nothing is charged). */
export interface PaidAnswer {
  body: Buffer;
  rows: number;
}

/** What a request presented: a subscription key (which rules out x402), or an x402 payment reading; and its sender. */
export interface Credentials {
  key: string | null;
  payment: PaymentReading;
  /** Whom a refused payment costs a token of the per-address limit; null where the transport applies none. */
  sender: Sender | null;
  /** Where the call's payment and its outcome are noted for its request's log line and the metrics (issue 42). */
  record?: CallRecord | null;
}

/** Why a payment with an identifier another request holds is refused (nothing charged). */
const IDENTIFIER_HELD =
  "payment_in_flight: another request holds this payment identifier (being paid right now, or paid over 15 minutes ago); repeat the request shortly to get its answer, or use a new identifier";

/** The fields of a facilitator's extension responses worth a log line (what @x402/core printed, no more). */
const EXTENSION_FIELDS = ["status", "rejectedReason", "reason", "code"];

/** A paid request served: the answer's bytes and the settlement receipt (null for a key or an empty answer). */
export interface PaidOutcome {
  body: Buffer;
  receipt: SettleResponse | null;
  /** True for a kept answer served again: its receipt records a payment an earlier request made (the transports say so). */
  replayed?: boolean;
}

/** Payment asked for (again): no payment, one refused, or one that could not be settled. Rendered as 402. */
export class PaymentRefusal extends Error {
  override readonly name = "PaymentRefusal";
  readonly transport: Transport;
  readonly required: PaymentRequired;
  /** The failed settlement, when settling was what failed (the answer was then withheld). */
  readonly settlement: SettleResponse | null;
  constructor(transport: Transport, required: PaymentRequired, settlement: SettleResponse | null = null) {
    super(required.error ?? "payment required");
    this.transport = transport;
    this.required = required;
    this.settlement = settlement;
  }
}

/** A paid request's shape for the core: which route, over which transport, for which exact query. */
export interface PaidRequest {
  route: PaidRoute;
  transport: Transport;
  /** The route and its validated query, canonical: an identifier kept for one request is a conflict on another. */
  request: string;
  credentials: Credentials;
}

/** Decides payment for every paid call (see the header); one per gateway. */
export class PaymentCore {
  readonly #keys: KeyStore;
  readonly #facilitator: FacilitatorClient;
  readonly #server: x402ResourceServer;
  readonly #offers: PaymentOffers;
  readonly #answers: IdempotentAnswers;
  readonly #log: EventLog;
  /** Authorizations (payer and nonce) being verified, answered or settled right now on this replica. */
  readonly #inFlight = new Set<string>();
  readonly #refusals = new RefusalLimit();
  /** Since when keys were last logged as judged by their last states; null when last logged fresh. */
  #keysStale: Date | null = null;
  #ready: Promise<void> | null = null;

  constructor(deps: {
    keys: KeyStore;
    facilitator: FacilitatorClient;
    server: x402ResourceServer;
    offers: PaymentOffers;
    answers: IdempotentAnswers;
    log: EventLog;
  }) {
    this.#keys = deps.keys;
    this.#facilitator = deps.facilitator;
    this.#server = deps.server;
    this.#offers = deps.offers;
    this.#answers = deps.answers;
    this.#log = deps.log;
    logHookFailures(deps.server, deps.log);
  }

  /** The key's id when it was verified moments ago and is still usable, else null: memory only, no await (the hot path). */
  trustedKeyId(key: string, now: number): string | null {
    return this.#keys.trustedId(key, now);
  }

  /** Since when API keys are judged by their last states, the store not answering for them; null while read fresh. */
  keysStaleSince(): Date | null {
    return this.#keys.staleSince();
  }

  /**
   * Serves a paid request: checks the key or the payment, makes the answer with `produce`, settles when it has data.
   * What was presented and what came of it are noted in the call's record, when it has one.
   */
  async charge(request: PaidRequest, produce: () => Promise<PaidAnswer>): Promise<PaidOutcome> {
    const { key, payment, record } = request.credentials;
    if (!record) return this.#charge(request, produce);
    record.presented(key !== null ? "key" : payment.kind === "none" ? "none" : "x402", key !== null ? this.#keys.idOf(key) : null, payment.kind === "payment" ? payment.payment.payer : null);
    try {
      const outcome = await this.#charge(request, produce);
      record.served(outcome.receipt, outcome.replayed === true, request.route);
      return outcome;
    } catch (error) {
      record.failed(error instanceof PaymentRefusal ? (error.required.error ?? PAYMENT_REQUIRED) : null, error);
      throw error;
    }
  }

  async #charge(request: PaidRequest, produce: () => Promise<PaidAnswer>): Promise<PaidOutcome> {
    const { key, payment, sender } = request.credentials;
    if (key !== null) {
      await this.#requireKey(key);
      return { body: (await produce()).body, receipt: null };
    }
    await this.ready();
    if (payment.kind === "none") throw this.#refuse(request, PAYMENT_REQUIRED);
    try {
      if (payment.kind === "malformed") throw this.#refuse(request, payment.reason);
      const presented = payment.payment;
      if (presented.id === null) return await this.#pay(request, presented, produce);
      const kept = IdempotentAnswers.keyOf(presented.payer, presented.id);
      return await this.#answers.exclusive(kept, () => this.#payOnce(request, presented, kept, produce));
    } catch (error) {
      // A payment refused (malformed, invalid, replayed, unsettled) costs its sender a token: 429 when none is left.
      if (error instanceof PaymentRefusal) this.#refusals.refused(sender);
      throw error;
    }
  }

  /** Initialises x402 once (the facilitator's supported kinds, then every offer); retried after a failure. */
  ready(): Promise<void> {
    this.#ready ??= (async () => {
      // Asked through the guard first, so a failure is ours to log (the resource server would print it).
      await this.#facilitated("supported", () => this.#facilitator.getSupported());
      await this.#server.initialize();
      await this.#offers.build();
    })().catch((error: unknown) => {
      this.#ready = null;
      throw error instanceof ApiError ? error : this.#unavailable("initialize", error);
    });
    return this.#ready;
  }

  /**
   * With a payment identifier: the answer kept for it, or a first payment whose answer is then kept. Once the payment
   * is verified (a refused one costs the store nothing), the identifier is claimed in the store: of two requests
   * carrying it on two replicas at once, one pays; the other is told to repeat the request (x402 payment-identifier:
   * "do not process the resend"), and then gets the kept answer.
   */
  async #payOnce(request: PaidRequest, payment: PresentedPayment, keptKey: string, produce: () => Promise<PaidAnswer>): Promise<PaidOutcome> {
    const kept = await this.#answers.get(keptKey);
    if (kept) return this.#serveKept(request, payment, kept);
    let claimed = false;
    try {
      const outcome = await this.#pay(request, payment, async () => {
        claimed = await this.#answers.claim(keptKey);
        if (!claimed) throw this.#refuse(request, IDENTIFIER_HELD);
        return produce();
      });
      if (!outcome.receipt?.success) {
        await this.#answers.release(keptKey); // nothing was charged: the identifier may pay again
        return outcome;
      }
      await this.#answers.put(keptKey, {
        request: request.request,
        payload_sha256: payment.digest,
        payer: payment.payer,
        body: outcome.body.toString("utf8"),
        receipt: outcome.receipt,
        expires_at: Date.now() + IDEMPOTENCY_WINDOW_MS,
      });
      return outcome;
    } catch (error) {
      // Claimed after verify, so an outage here is the settlement's: it may still land on chain, and a retry re-signed
      // with this identifier must not pay again — the claim stays until pruned. Anything else charged nothing.
      const settling = error instanceof ApiError && error.code === "facilitator_unavailable";
      if (claimed && !settling) await this.#answers.release(keptKey);
      throw error;
    }
  }

  /** A kept answer served again: the same bytes and receipt, for the very request it answered. */
  async #serveKept(request: PaidRequest, payment: PresentedPayment, kept: KeptAnswer): Promise<PaidOutcome> {
    if (kept.request !== request.request) {
      throw new ApiError("idempotency_conflict", "This payment identifier was already used for another request; nothing was charged.");
    }
    if (kept.payload_sha256 !== payment.digest) {
      // A new authorization with a used identifier (a client that re-signed its retry): served again only once the
      // facilitator has proven the payer signed it; the new authorization is then released, never settled.
      const { verified } = await this.#verifyOrRefuse(request, payment);
      await this.#release(payment, verified, 200);
    }
    this.#log("info", "kept_answer_served", { route: request.route.path, transport: request.transport });
    return { body: Buffer.from(kept.body), receipt: kept.receipt as SettleResponse, replayed: true };
  }

  /** An x402 payment: verified, the answer made, settled for data; the authorization is held meanwhile. */
  async #pay(request: PaidRequest, payment: PresentedPayment, produce: () => Promise<PaidAnswer>): Promise<PaidOutcome> {
    if (this.#inFlight.has(payment.authorization)) {
      throw this.#refuse(request, "payment_in_flight: this authorization is already being processed; sign a new one or wait for its answer");
    }
    this.#inFlight.add(payment.authorization);
    try {
      const { verified, declared } = await this.#verifyOrRefuse(request, payment);
      let answer: PaidAnswer;
      try {
        answer = await produce();
      } catch (error) {
        await this.#release(payment, verified, error instanceof ApiError ? error.status : error instanceof PaymentRefusal ? 402 : 500);
        throw error;
      }
      // Settle only for an answer with data: an empty answer is never charged (DESIGN "Gateway"; pitfall 44).
      if (answer.rows === 0) {
        await this.#release(payment, verified, 200);
        return { body: answer.body, receipt: null };
      }
      const receipt = await this.#settle(request, payment, verified, declared);
      return { body: answer.body, receipt };
    } finally {
      this.#inFlight.delete(payment.authorization);
    }
  }

  /** The requirements the payment matches, verified by the facilitator; a PaymentRefusal otherwise. */
  async #verifyOrRefuse(request: PaidRequest, payment: PresentedPayment): Promise<{ verified: PaymentRequirements; declared: Record<string, unknown> }> {
    const offer = this.#offers.required(request.route, request.transport, PAYMENT_REQUIRED);
    const matched = this.#server.findMatchingRequirements(offer.accepts, payment.payload);
    if (!matched) {
      throw this.#refuse(request, "payment_mismatch: the payment does not match this endpoint's requirements (scheme, network, amount, asset, payTo)");
    }
    const echo = this.#server.validateExtensions(offer, payment.payload);
    if (!echo.valid) throw this.#refuse(request, echo.invalidReason ?? "extension_echo_mismatch");
    // Ours to check, whichever facilitator is configured: the stock one accepts a window of any length (issue 39).
    const outside = windowRefusal(payment.window, matched.maxTimeoutSeconds, Math.floor(Date.now() / 1000));
    if (outside !== null) throw this.#refuse(request, outside);
    const declared = offer.extensions ?? {};
    // A sender whose refused payments emptied its bucket waits here, before the facilitator is asked.
    this.#refusals.beforeVerify(request.credentials.sender);
    let reason: string | null;
    try {
      const result = await this.#facilitated("verify", () => this.#server.verifyPayment(payment.payload, matched, declared));
      this.#noteExtensions("verify", result);
      reason = result.isValid ? null : (result.invalidReason ?? "invalid_payment");
    } catch (error) {
      if (error instanceof VerifyError) reason = error.invalidReason ?? "invalid_payment";
      else if (error instanceof FacilitatorRejection) reason = error.message;
      else throw error;
    }
    if (reason !== null) throw this.#refuse(request, reason);
    return { verified: matched, declared };
  }

  async #settle(request: PaidRequest, payment: PresentedPayment, verified: PaymentRequirements, declared: Record<string, unknown>): Promise<SettleResponse> {
    let settled: SettleResponse;
    try {
      settled = await this.#facilitated("settle", () => this.#server.settlePayment(payment.payload, verified, declared));
      this.#noteExtensions("settle", settled);
    } catch (error) {
      if (!(error instanceof SettleError) && !(error instanceof FacilitatorRejection)) throw error;
      const reason = error instanceof SettleError ? (error.errorReason ?? error.message) : error.message;
      settled = { success: false, errorReason: reason, transaction: error instanceof SettleError ? (error.transaction ?? "") : "", network: verified.network };
    }
    if (!settled.success) {
      this.#log("warn", "settlement_failed", { route: request.route.path, transport: request.transport, reason: settled.errorReason ?? null });
      const required = this.#offers.required(request.route, request.transport, `settlement_failed: ${settled.errorReason ?? "unknown"}`);
      throw new PaymentRefusal(request.transport, required, settled);
    }
    return settled;
  }

  /** Tells x402's hooks that a verified payment will not be settled (nothing moves: the authorization lapses). */
  async #release(payment: PresentedPayment, verified: PaymentRequirements, status: number): Promise<void> {
    await this.#server
      .createPaymentCancellationDispatcher(payment.payload, verified)
      .cancel({ reason: "handler_failed", responseStatus: status })
      .catch((error: unknown) => this.#log("warn", "payment_release_failed", { error: (error as Error)?.message ?? String(error) }));
  }

  async #requireKey(key: string): Promise<void> {
    let ok: boolean;
    try {
      ok = await this.#keys.verify(key);
    } catch (error) {
      this.#log("error", "key_check_failed", { error: (error as Error)?.message ?? String(error) });
      throw new ApiError("storage_unavailable", "The API key could not be checked right now.", { headers: { "retry-after": "5" } });
    } finally {
      this.#noteKeyStaleness();
    }
    if (!ok) throw new ApiError("invalid_api_key", "The API key is not valid.", { headers: { "www-authenticate": 'Bearer realm="filing-data"' } });
  }

  /** One log line when keys start being judged by their last states (the store not answering), and one when they are read fresh again. */
  #noteKeyStaleness(): void {
    const now = this.#keys.staleSince();
    const before = this.#keysStale;
    if (now !== null && before === null) this.#log("warn", "key_states_stale", { since: now.toISOString() });
    else if (now === null && before !== null) this.#log("info", "key_states_fresh", { stale_since: before.toISOString() });
    this.#keysStale = now;
  }

  /** What the facilitator did with the extensions (e.g. bazaar cataloguing), when it says: one log line. */
  #noteExtensions(operation: string, result: { extensionResponses?: Record<string, unknown> }): void {
    if (!result.extensionResponses) return;
    const responses = Object.fromEntries(
      Object.entries(result.extensionResponses).map(([key, value]) => {
        const fields = typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
        return [key, Object.fromEntries(EXTENSION_FIELDS.filter((f) => fields[f] !== undefined).map((f) => [f, fields[f]]))];
      }),
    );
    this.#log("info", "facilitator_extension_responses", { operation, responses });
  }

  #refuse(request: PaidRequest, reason: string): PaymentRefusal {
    return new PaymentRefusal(request.transport, this.#offers.required(request.route, request.transport, reason));
  }

  /** Runs a facilitator call; an outage (unreachable, 5xx, past the deadline, malformed reply) becomes 503. */
  async #facilitated<T>(operation: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw error instanceof FacilitatorResponseError ? this.#unavailable(operation, error) : error;
    }
  }

  #unavailable(operation: string, error: unknown): ApiError {
    this.#log("error", "facilitator_unavailable", { operation, error: (error as Error)?.message ?? String(error) });
    const headers = { "retry-after": "5" };
    if (operation !== "settle") return new ApiError("facilitator_unavailable", "The payment facilitator did not answer in time; nothing was charged.", { headers });
    // A settlement that timed out may still land on chain: say so rather than promise nothing was charged.
    return new ApiError("facilitator_unavailable", "The payment facilitator did not confirm the settlement in time; the answer was withheld.", {
      headers,
      hint: "The authorization may still settle (it cannot be used twice); check the payer's balance before paying again.",
    });
  }
}
