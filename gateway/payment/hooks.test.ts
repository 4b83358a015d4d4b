// Third-party failures go through our JSON logger as one line, never raw to the console (issue 17): the real payment
// core serves a payment while hooks of @x402/core's resource server throw, which @x402/core reports with console.warn.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { PAID_ROUTES } from "../../schemas/api.ts";
import { memoryLogger } from "../../test/_logger.ts";
import { addressOf, ANVIL_KEYS, payerClient, quietConsole } from "../../test/_x402.ts";
import { openStorage } from "../../storage/open.ts";
import { DEV_PAY_TO } from "../serve/server.ts";
import { PaymentCore } from "./core.ts";
import { createLocalFacilitator } from "./dev-chain/facilitator.ts";
import { createUsdcLedger } from "./dev-chain/ledger.ts";
import { createResourceServer, guardFacilitator } from "./facilitator.ts";
import { IdempotentAnswers } from "./idempotency.ts";
import { KeyStore } from "./keys.ts";
import { PAYMENT_REQUIRED, PaymentOffers } from "./offers.ts";
import { readPayment } from "./payload.ts";

const dir = mkdtempSync(join(tmpdir(), "payment-hooks-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("a resource-server hook and an extension hook that throw are one warn line each in our log, nothing on the console", async () => {
  const storage = openStorage(dir);
  const ledger = createUsdcLedger();
  ledger.fund(addressOf(ANVIL_KEYS.payer), 1_000_000n);
  const facilitator = guardFacilitator(createLocalFacilitator(ledger), 5_000);
  const server = createResourceServer(facilitator);
  server.onAfterVerify(async () => {
    throw new Error("after-verify hook failed");
  });
  // Registered again under its own key, now with a settlement enrichment that throws.
  server.registerExtension({
    key: "payment-identifier",
    enrichSettlementResponse: async () => {
      throw new Error("enrichment failed");
    },
  });
  const logger = memoryLogger();
  const log = logger.log.bind(logger);
  const offers = new PaymentOffers(server, { payTo: DEV_PAY_TO, publicBaseUrl: "https://api.example.test" });
  const core = new PaymentCore({ keys: new KeyStore(storage), facilitator, server, offers, answers: new IdempotentAnswers(storage, log), log });
  await core.ready();
  const route = PAID_ROUTES[0]!;
  const payload = await payerClient(ANVIL_KEYS.payer).createPaymentPayload(offers.required(route, "http", PAYMENT_REQUIRED));

  const quiet = quietConsole();
  let settled: boolean | undefined;
  try {
    const credentials = { key: null, payment: readPayment(JSON.parse(JSON.stringify(payload))), sender: null };
    const outcome = await core.charge({ route, transport: "http", request: `${route.path} {}`, credentials }, async () => ({ body: Buffer.from('{"data":[1]}'), rows: 1 }));
    settled = outcome.receipt?.success;
  } finally {
    expect(quiet.restore()).toEqual([]); // @x402/core printed "[x402] Resource server afterVerify hook threw …" here
  }
  expect(settled).toBe(true); // a hook failing does not stop the payment
  expect(logger.lines.filter((l) => l.event === "x402_hook_failed")).toEqual([
    { level: "warn", event: "x402_hook_failed", fields: { hook: "manual afterVerify hook #0 (afterVerify)", error: "after-verify hook failed" } },
    { level: "warn", event: "x402_hook_failed", fields: { hook: 'extension "payment-identifier" enrichSettlementResponse', error: "enrichment failed" } },
  ]);
});
