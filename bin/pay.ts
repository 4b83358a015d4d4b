// `npm run pay -- URL`: a real x402 v2 buyer for trying the paid flow. It signs with PAYER_PRIVATE_KEY, or with
// a public test key (anvil #0) that only dev mode's in-memory test USDC accepts — never use that key for real money.
import { x402Client } from "@x402/core/client";
import { decodePaymentResponseHeader } from "@x402/core/http";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import { privateKeyToAccount } from "viem/accounts";

const ANVIL_TEST_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";

const url = process.argv[2];
if (!url) {
  console.error('usage: npm run pay -- "http://127.0.0.1:3000/earnings/summary?ticker=AAPL"');
  process.exit(2);
}
const key = (process.env.PAYER_PRIVATE_KEY ?? ANVIL_TEST_KEY) as `0x${string}`;
const account = privateKeyToAccount(key);
const pay = wrapFetchWithPayment(fetch, new x402Client().register("eip155:8453", new ExactEvmScheme(account)));
const res = await pay(url);
console.error(`HTTP ${res.status} — paid by ${account.address}${process.env.PAYER_PRIVATE_KEY ? "" : " (public test key: dev mode only)"}`);
const receipt = res.headers.get("payment-response");
if (receipt) console.error(`PAYMENT-RESPONSE ${JSON.stringify(decodePaymentResponseHeader(receipt))}`);
console.log(await res.text());
process.exitCode = res.ok ? 0 : 1;
