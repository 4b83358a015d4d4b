// Our client of a facilitator's HTTP API (x402 spec §7: POST /verify, POST /settle, GET /supported), so that nothing
// a facilitator sends reaches the console (@x402/core's HTTPFacilitatorClient prints an EXTENSION-RESPONSES header to
// stdout): extension responses ride on the result for the payment core to log, and every failure is sorted here.
import { FacilitatorResponseError, FacilitatorTimeoutError, type FacilitatorClient } from "@x402/core/server";
import {
  SettleError,
  VerifyError,
  type PaymentPayload,
  type PaymentRequirements,
  type SettleResponse,
  type SupportedResponse,
  type VerifyResponse,
} from "@x402/core/types";
import { ExtensionResponses, SettleReply, SupportedReply, VerifyReply } from "../../schemas/payment.ts";

/** The facilitator answered 4xx without a protocol verdict: it refuses this payment, it is not down. */
export class FacilitatorRejection extends Error {
  override readonly name = "FacilitatorRejection";
}

/** Where a facilitator is, and the headers that authenticate each of its calls (its credentials, if any). */
export interface FacilitatorEndpoint {
  url: string;
  headers(path: Path): Promise<Record<string, string>>;
}

type Path = "verify" | "settle" | "supported";

/** A FacilitatorClient over `endpoint`; each call (body included) ends within `timeoutMs`. */
export function httpFacilitator(endpoint: FacilitatorEndpoint, timeoutMs: number): FacilitatorClient {
  const base = endpoint.url.replace(/\/+$/, "");
  async function call(path: Path, body?: unknown): Promise<{ status: number; json: unknown; extensions: Record<string, unknown> | undefined }> {
    const init = { headers: { "content-type": "application/json", ...(await endpoint.headers(path)) }, signal: AbortSignal.timeout(timeoutMs) };
    let res: Response;
    let text: string;
    try {
      res = await fetch(`${base}/${path}`, body === undefined ? init : { ...init, method: "POST", body: JSON.stringify(body) });
      text = await res.text();
    } catch (error) {
      if ((error as Error)?.name === "TimeoutError") throw new FacilitatorTimeoutError(path, timeoutMs);
      throw new FacilitatorResponseError(`Facilitator ${path} unreachable: ${(error as Error)?.message ?? String(error)}`);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (!res.ok && json === undefined) throw failure(path, res.status, text);
    return { status: res.status, json, extensions: extensionResponses(res.headers.get("extension-responses")) };
  }
  /** A verify or settle: the reply read as the spec writes it; a non-2xx one with a verdict is that verdict's error. */
  async function verdict<T extends VerifyResponse | SettleResponse>(
    path: "verify" | "settle",
    schema: typeof VerifyReply | typeof SettleReply,
    Verdict: new (status: number, response: T) => Error,
    paymentPayload: PaymentPayload,
    paymentRequirements: PaymentRequirements,
  ): Promise<T> {
    const { status, json, extensions } = await call(path, { x402Version: paymentPayload.x402Version, paymentPayload, paymentRequirements });
    const reply = schema.safeParse(json);
    if (status >= 300) throw reply.success ? new Verdict(status, compact(reply.data) as T) : failure(path, status, JSON.stringify(json));
    if (!reply.success) throw new FacilitatorResponseError(`Facilitator ${path} returned invalid data: ${excerpt(JSON.stringify(json))}`);
    return { ...(compact(reply.data) as T), ...(extensions ? { extensionResponses: extensions } : {}) };
  }
  return {
    verify: (payload, requirements) => verdict<VerifyResponse>("verify", VerifyReply, VerifyError, payload, requirements),
    settle: (payload, requirements) => verdict<SettleResponse>("settle", SettleReply, SettleError, payload, requirements),
    async getSupported() {
      const { status, json } = await call("supported");
      const reply = SupportedReply.safeParse(json);
      if (status >= 300 || !reply.success) throw new FacilitatorResponseError(`Facilitator supported answered ${status}: ${excerpt(JSON.stringify(json))}`);
      return reply.data as SupportedResponse;
    },
  };
}

/** A non-2xx answer without a verdict: 400/422 judge the payment; 401/403 (our credentials), 408, 429 and 5xx are the facilitator's side. */
function failure(path: Path, status: number, text: string): Error {
  if (status === 400 || status === 422) return new FacilitatorRejection(`facilitator_rejected_payment (${path} answered ${status})`);
  return new FacilitatorResponseError(`Facilitator ${path} failed (${status}): ${excerpt(text)}`);
}

/** The header's extension responses; undefined when absent or undecodable (they are informative only). */
function extensionResponses(header: string | null): Record<string, unknown> | undefined {
  if (!header) return undefined;
  try {
    const parsed = ExtensionResponses.safeParse(JSON.parse(Buffer.from(header, "base64").toString("utf8")));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Drops null fields: x402's types say optional, not nullable. */
function compact<T extends Record<string, unknown>>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null)) as T;
}

function excerpt(text: string | undefined): string {
  const compacted = (text ?? "").trim().replace(/\s+/g, " ");
  return compacted.length > 200 ? `${compacted.slice(0, 197)}...` : compacted || "<empty response>";
}
