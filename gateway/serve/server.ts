// The gateway's composition root: configuration → storage → snapshots, keys, facilitator, the payment core → the app.
// Dev mode (no X402_PAY_TO) settles on an in-memory ledger of test USDC and says so loudly; refused in production.
import { createFacilitatorConfig } from "@coinbase/x402";
import { HTTPFacilitatorClient, type FacilitatorClient } from "@x402/core/server";
import type { H3 } from "h3";
import { openStorage } from "../../storage/open.ts";
import { createApp } from "./app.ts";
import { Billing } from "../subscriptions/billing.ts";
import { describeConfig, type GatewayConfig } from "../config.ts";
import { KeyStore } from "../payment/keys.ts";
import { createUsdcLedger } from "../payment/dev-chain/ledger.ts";
import { createLocalFacilitator } from "../payment/dev-chain/facilitator.ts";
import { PaymentCore } from "../payment/core.ts";
import { createResourceServer, guardFacilitator } from "../payment/facilitator.ts";
import { IdempotentAnswers } from "../payment/idempotency.ts";
import { PaymentOffers } from "../payment/offers.ts";
import { ClientRateLimit } from "../http/rate-limit.ts";
import { GatewayMetrics } from "./metrics.ts";
import { SnapshotStore } from "./snapshot.ts";
import { CrossView } from "./cross.ts";
import type { EventLog } from "../../logging/log.ts";

/** The receiving address in dev mode (a public test address: nothing real is ever paid to it). */
export const DEV_PAY_TO = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
/** Test USDC each new payer gets in dev mode: 100 USDC. */
const DEV_CREDIT = 100_000_000n;

/** A wired gateway, ready to serve. */
export interface Gateway {
  app: H3;
  snapshots: SnapshotStore;
  keys: KeyStore;
  payments: PaymentCore;
  /** Its metrics (issue 42): fed by the port (listen.ts), the payment core and the facilitator; scraped on METRICS_PORT. */
  metrics: GatewayMetrics;
  close(): void;
}

/** Wires the gateway from configuration; a facilitator may be injected (tests use a loopback one). */
export function createGateway(config: GatewayConfig, options: { log: EventLog; facilitator?: FacilitatorClient }): Gateway {
  const metrics = new GatewayMetrics();
  const log = metrics.counting(options.log);
  const storage = openStorage(config.dataUrl, config.storageEnv);
  const snapshots = new SnapshotStore(storage, { cacheBytes: config.documentCacheBytes, log });
  metrics.watch(snapshots);
  const keys = new KeyStore(storage);
  const facilitator = guardFacilitator(options.facilitator ?? chooseFacilitator(config, log), config.facilitatorTimeoutMs, (operation, seconds, failure) =>
    metrics.facilitator(operation, seconds, failure),
  );
  const payTo = config.payTo ?? DEV_PAY_TO;
  const server = createResourceServer(facilitator);
  const offers = new PaymentOffers(server, { payTo, publicBaseUrl: config.publicBaseUrl });
  const answers = new IdempotentAnswers(storage, log);
  const payments = new PaymentCore({ keys, facilitator, server, offers, answers, log });
  const billing = config.stripe ? new Billing(config.stripe, keys, storage, config.publicBaseUrl, log) : null;
  const limiter = new ClientRateLimit({ ...config.freeRate, trustedHops: config.trustedHops });
  const cross = new CrossView(storage, snapshots, config.documentCacheBytes / 2);
  const app = createApp({ snapshots, cross, payments, publicBaseUrl: config.publicBaseUrl, limiter, log, billing });
  log("info", "gateway_configured", describeConfig(config));
  return { app, snapshots, keys, payments, metrics, close: () => snapshots.close() };
}

function chooseFacilitator(config: GatewayConfig, log: EventLog): FacilitatorClient {
  if (config.payTo && config.facilitatorUrl) {
    const auth = config.cdp ? createFacilitatorConfig(config.cdp.keyId, config.cdp.keySecret).createAuthHeaders : undefined;
    return new HTTPFacilitatorClient({ url: config.facilitatorUrl, ...(auth ? { createAuthHeaders: auth } : {}) });
  }
  if (config.production) throw new Error("dev-mode payments are refused when NODE_ENV=production");
  log("warn", "DEV_MODE_PAYMENTS", {
    message:
      "X402_PAY_TO is not set: payments settle on an IN-MEMORY LEDGER of TEST USDC (every payer gets 100 test USDC). " +
      "No real money moves. Set X402_PAY_TO and X402_FACILITATOR_URL for real payments.",
  });
  return createLocalFacilitator(createUsdcLedger({ autoCreditAtomic: DEV_CREDIT }));
}
