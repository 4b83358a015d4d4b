// `npm run pay -- URL`: a real x402 v2 buyer for trying the paid flow, which says what happened — paid (with the
// receipt), not charged (an empty answer, or no payment asked), or refused (status and error code). It signs with
// PAYER_PRIVATE_KEY, or with a public test key (anvil #0) that only dev mode's in-memory test USDC accepts.
import { pathToFileURL } from "node:url";
import { x402Client } from "@x402/core/client";
import { decodePaymentResponseHeader, decodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentPayload } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import { privateKeyToAccount } from "viem/accounts";
import { NETWORK, USDC_BASE, USDC_DECIMALS } from "../schemas/api.ts";

const ANVIL_TEST_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const USAGE = 'usage: npm run pay -- "http://127.0.0.1:3000/earnings/summary?ticker=AAPL"';

/** What one paid request came to. */
export interface PayOutcome {
  kind: "paid" | "not_charged" | "refused" | "failed";
  /** One line for a person: the outcome, the status, and the receipt or error code. */
  line: string;
  /** The response body, as served. */
  body: string;
}

/** Requests `url`, paying a 402 with x402, and tells what happened. */
export async function pay(url: string, env: NodeJS.ProcessEnv = process.env): Promise<PayOutcome> {
  const account = privateKeyToAccount((env.PAYER_PRIVATE_KEY ?? ANVIL_TEST_KEY) as `0x${string}`);
  const who = `${account.address}${env.PAYER_PRIVATE_KEY ? "" : " (public test key: dev mode only)"}`;
  let signed: PaymentPayload | null = null;
  // The wrapper hides whether it signed: watch the requests it sends for a PAYMENT-SIGNATURE.
  const watching: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const header = request.headers.get("payment-signature");
    if (header) signed = decodePaymentSignatureHeader(header);
    return fetch(request);
  };
  let res: Response;
  try {
    res = await wrapFetchWithPayment(watching, new x402Client().register(NETWORK, new ExactEvmScheme(account)))(url);
  } catch (error) {
    return { kind: "failed", line: `failed: ${url}: ${(error as Error).message}`, body: "" };
  }
  const body = await res.text();
  const payment = signed as PaymentPayload | null;
  const receipt = res.headers.get("payment-response");
  const settled = receipt ? (decodePaymentResponseHeader(receipt) as { success?: boolean; transaction?: string; network?: string; payer?: string; errorReason?: string }) : null;
  const unsettled = payment ? "; the signed payment was not settled" : "";
  if (!res.ok) return { kind: "refused", line: `refused: HTTP ${res.status} ${errorOf(body)}${settled?.errorReason ? ` (${settled.errorReason})` : ""}${unsettled}`, body };
  if (settled?.success && payment) {
    return { kind: "paid", line: `paid: HTTP ${res.status}, ${price(payment)} by ${who}; receipt: ${JSON.stringify(settled)}`, body };
  }
  const rows = rowsOf(body);
  if (payment) return { kind: "not_charged", line: `not charged: HTTP ${res.status}, ${rows === 0 ? "an empty answer (0 rows)" : "no settlement receipt"}${unsettled}`, body };
  return { kind: "not_charged", line: `not charged: HTTP ${res.status}, no payment was asked (a free endpoint, or an API key)`, body };
}

/** "$0.02 USDC (20000 atomic units) to 0x… on eip155:8453", from the requirements the payment signed. */
function price(payment: PaymentPayload): string {
  const { amount, asset, payTo, network } = payment.accepted;
  const usd = asset.toLowerCase() === USDC_BASE.toLowerCase() ? `$${(Number(amount) / 10 ** USDC_DECIMALS).toFixed(2)} USDC ` : "";
  return `${usd}(${amount} atomic units of ${asset}) to ${payTo} on ${network}`;
}

/** "ticker_not_covered — message" from the service's error body, or what the body begins with. */
function errorOf(body: string): string {
  try {
    const { error } = JSON.parse(body) as { error?: { code?: string; message?: string } };
    if (error?.code) return `${error.code} — ${error.message ?? ""}`;
  } catch {
    // not JSON: said below
  }
  return `(not the service's error body: ${JSON.stringify(body.slice(0, 80))})`;
}

function rowsOf(body: string): number | null {
  try {
    const { data } = JSON.parse(body) as { data?: unknown };
    return Array.isArray(data) ? data.length : null;
  } catch {
    return null;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const url = process.argv[2];
  if (!url) {
    console.error(USAGE);
    process.exit(2);
  }
  const outcome = await pay(url);
  console.error(outcome.line);
  if (outcome.body) console.log(outcome.body);
  process.exitCode = outcome.kind === "refused" || outcome.kind === "failed" ? 1 : 0;
}
