// `npm run pay -- URL` (an HTTP endpoint) or `npm run pay -- URL/mcp TOOL '{"ticker":"AAPL"}'` (an MCP tool): a real
// x402 v2 buyer for trying the paid flow. It signs with PAYER_PRIVATE_KEY, or with a public test key (anvil #0) that
// only dev mode's in-memory test USDC accepts — never use that key for real money. PAYMENT_ID names the payment.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { decodePaymentResponseHeader } from "@x402/core/http";
import { wrapFetchWithPayment } from "@x402/fetch";
import { privateKeyToAccount } from "viem/accounts";
import { callPaying, payer } from "./x402-buyer.ts";

const ANVIL_TEST_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";

const [url, tool, args] = process.argv.slice(2);
if (!url) {
  console.error('usage: npm run pay -- "http://127.0.0.1:3000/earnings/summary?ticker=AAPL"');
  console.error('       npm run pay -- http://127.0.0.1:3000/mcp get_earnings_summary \'{"ticker":"AAPL"}\'');
  process.exit(2);
}
const key = (process.env.PAYER_PRIVATE_KEY ?? ANVIL_TEST_KEY) as `0x${string}`;
const who = `paid by ${privateKeyToAccount(key).address}${process.env.PAYER_PRIVATE_KEY ? "" : " (public test key: dev mode only)"}`;
const buyer = payer(key, process.env.PAYMENT_ID);

if (tool) {
  // An agent's way: the MCP SDK's Client lists the tools, then calls; a payment request is answered and the call repeated.
  const client = new Client({ name: "filing-data-buyer", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  await client.listTools();
  const { paid } = await callPaying(client, buyer, tool, JSON.parse(args ?? "{}") as Record<string, unknown>);
  await client.close();
  console.error(`${paid.isError ? "tool error" : "tool result"} — ${who}`);
  const receipt = paid._meta?.["x402/payment-response"];
  if (receipt) console.error(`_meta["x402/payment-response"] ${JSON.stringify(receipt)}`);
  console.log(paid.isError ? paid.content.map((c) => (c.type === "text" ? c.text : "")).join("\n") : JSON.stringify(paid.structuredContent));
  process.exitCode = paid.isError ? 1 : 0;
} else {
  const res = await wrapFetchWithPayment(fetch, buyer)(url);
  console.error(`HTTP ${res.status} — ${who}`);
  const receipt = res.headers.get("payment-response");
  if (receipt) console.error(`PAYMENT-RESPONSE ${JSON.stringify(decodePaymentResponseHeader(receipt))}`);
  console.log(await res.text());
  process.exitCode = res.ok ? 0 : 1;
}
