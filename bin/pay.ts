// `npm run pay -- URL` (an HTTP endpoint) or `npm run pay -- URL/mcp TOOL '{"ticker":"AAPL"}'` (an MCP tool): a real
// x402 v2 buyer for trying the paid flow, which says what happened — paid (with the receipt), not charged (an empty
// answer, no payment asked, or the kept answer of a PAYMENT_ID paid earlier), or refused (status and error code).
// It signs with PAYER_PRIVATE_KEY, or with a public test key that only dev mode's test USDC accepts (bin/config.ts).
import { pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { decodePaymentResponseHeader, decodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentPayload } from "@x402/core/types";
import { wrapFetchWithPayment } from "@x402/fetch";
import { privateKeyToAccount } from "viem/accounts";
import { USDC_BASE, USDC_DECIMALS } from "../schemas/api.ts";
import { loadPayConfig, type PayConfig } from "./config.ts";
import { callPaying, paymentRequiredOf, payer } from "./x402-buyer.ts";

const USAGE = [
  'usage: npm run pay -- "http://127.0.0.1:3000/earnings/summary?ticker=AAPL"',
  "       npm run pay -- http://127.0.0.1:3000/mcp get_earnings_summary '{\"ticker\":\"AAPL\"}'",
  "Pays for one request with x402 (HTTP, or a tool over MCP) and prints the body on stdout, what happened on stderr.",
  "It signs with PAYER_PRIVATE_KEY, else a public test key that only dev mode's test USDC accepts; PAYMENT_ID names",
  "the payment, so that repeating the request within 15 minutes is not charged again.",
].join("\n");

/** What one paid request came to. */
export interface PayOutcome {
  kind: "paid" | "not_charged" | "refused" | "failed";
  /** One line for a person: the outcome, the status, and the receipt or error code. */
  line: string;
  /** The response body (HTTP) or the tool result's content (MCP), as served. */
  body: string;
}

/** A settlement receipt as the service sends it (PAYMENT-RESPONSE, or `_meta["x402/payment-response"]`). */
interface Receipt {
  success?: boolean;
  transaction?: string;
  network?: string;
  payer?: string;
  errorReason?: string;
}

/** Requests `url`, paying a 402 with x402, and tells what happened. */
export async function pay(url: string, config: PayConfig): Promise<PayOutcome> {
  const { buyer, who } = signer(config);
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
    res = await wrapFetchWithPayment(watching, buyer)(url);
  } catch (error) {
    return { kind: "failed", line: `failed: ${url}: ${(error as Error).message}`, body: "" };
  }
  const body = await res.text();
  const header = res.headers.get("payment-response");
  const receipt = header ? (decodePaymentResponseHeader(header) as Receipt) : null;
  const refusal = res.ok ? null : `HTTP ${res.status} ${errorOf(body)}`;
  const replayed = res.headers.get("idempotent-replayed") === "true";
  return outcome({ status: `HTTP ${res.status}`, refusal, signed, receipt, replayed, rows: rowsOf(body), body, who, config });
}

/** Calls an MCP tool as an agent does (the SDK's Client, tools listed first), paying when asked; tells what happened. */
export async function payTool(url: string, tool: string, args: Record<string, unknown>, config: PayConfig): Promise<PayOutcome> {
  const { buyer, who } = signer(config);
  const client = new Client({ name: "filing-data-buyer", version: "1.0.0" });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    await client.listTools();
    const { paid: result, payload: signed } = await callPaying(client, buyer, tool, args);
    const receipt = (result._meta?.["x402/payment-response"] ?? null) as Receipt | null;
    const text = result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
    const body = result.isError ? text : JSON.stringify(result.structuredContent);
    const refusal = result.isError ? `tool error ${toolErrorOf(result)}` : null;
    const replayed = result._meta?.["idempotent-replayed"] === true;
    return outcome({ status: "tool result", refusal, signed, receipt, replayed, rows: rowsOf(body), body, who, config });
  } catch (error) {
    return { kind: "failed", line: `failed: ${url} ${tool}: ${(error as Error).message}`, body: "" };
  } finally {
    await client.close();
  }
}

/** What one paid call came back with, whichever transport carried it. */
interface Answered {
  status: string;
  refusal: string | null;
  signed: PaymentPayload | null;
  receipt: Receipt | null;
  /** The service served the answer kept for this payment identifier: its receipt is of the earlier payment. */
  replayed: boolean;
  rows: number | null;
  body: string;
  who: string;
  config: PayConfig;
}

/** The one reading of a paid call for both transports: refused, paid (settled), or not charged (and why). */
function outcome({ status, refusal, signed, receipt, replayed, rows, body, who, config }: Answered): PayOutcome {
  const unsettled = signed ? "; the signed payment was not settled" : "";
  if (refusal) return { kind: "refused", line: `refused: ${refusal}${receipt?.errorReason ? ` (${receipt.errorReason})` : ""}${unsettled}`, body };
  if (receipt?.success && signed && replayed) {
    const line = `not charged again: ${status}, the answer kept for PAYMENT_ID ${config.paymentId} (paid earlier)${unsettled}; its receipt: ${JSON.stringify(receipt)}`;
    return { kind: "not_charged", line, body };
  }
  if (receipt?.success && signed) return { kind: "paid", line: `paid: ${status}, ${price(signed)} by ${who}; receipt: ${JSON.stringify(receipt)}`, body };
  if (signed) return { kind: "not_charged", line: `not charged: ${status}, ${rows === 0 ? "an empty answer (0 rows)" : "no settlement receipt"}${unsettled}`, body };
  return { kind: "not_charged", line: `not charged: ${status}, no payment was asked (a free endpoint, or an API key)`, body };
}

function signer(config: PayConfig): { buyer: ReturnType<typeof payer>; who: string } {
  const who = `${privateKeyToAccount(config.privateKey).address}${config.testKey ? " (public test key: dev mode only)" : ""}`;
  return { buyer: payer(config.privateKey, config.paymentId ?? undefined), who };
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

/** A tool error's code and message: its error body, or what a payment request says (the PaymentRequired's `error`). */
function toolErrorOf(result: CallToolResult): string {
  const texts = result.content.flatMap((c) => (c.type === "text" ? [c.text] : []));
  const body = texts.map(errorOf).find((line) => !line.startsWith("("));
  if (body) return body;
  const required = paymentRequiredOf(result);
  return required ? `payment_required — ${required.error ?? "payment required"}` : errorOf(texts[0] ?? "");
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
  const [url, tool, args] = process.argv.slice(2);
  if (url === "--help" || url === "-h") {
    console.log(USAGE);
    process.exit(0);
  }
  if (!url) {
    console.error(USAGE);
    process.exit(2);
  }
  let config: PayConfig;
  let toolArgs: Record<string, unknown> = {};
  try {
    config = loadPayConfig(process.env);
    if (args !== undefined) toolArgs = JSON.parse(args) as Record<string, unknown>;
  } catch (error) {
    console.error(error instanceof SyntaxError ? `the tool's arguments are not JSON: ${args}\n${USAGE}` : (error as Error).message);
    process.exit(2);
  }
  const result = tool ? await payTool(url, tool, toolArgs, config) : await pay(url, config);
  console.error(result.line);
  if (result.body) console.log(result.body);
  process.exitCode = result.kind === "refused" || result.kind === "failed" ? 1 : 0;
}
