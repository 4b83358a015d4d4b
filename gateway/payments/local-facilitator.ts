// The dev-mode and test facilitator: the real @x402 exact-EVM facilitator over the in-memory USDC ledger, in-process or on a loopback HTTP port.
// It must never be used in production: the ledger mints test money, so payments settled here are not payments.
import { H3, HTTPError, readBody, serve, type H3Event } from "h3";
import { x402Facilitator } from "@x402/core/facilitator";
import { isPaymentPayloadV2, isPaymentRequirementsV2 } from "@x402/core/schemas";
import type { FacilitatorClient } from "@x402/core/server";
import type { Network, PaymentPayload, PaymentRequirements, SupportedResponse } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/facilitator";
import type { UsdcLedger } from "./ledger.ts";

/** Base mainnet, the one network the ledger pretends to be. */
export const BASE_NETWORK: Network = "eip155:8453";

/** How the loopback facilitator answers: normally, after a long pause, 503 to everything, or 400 without a verdict to /verify and /settle. */
export type FacilitatorMode = "ok" | "slow" | "down" | "reject";

/** A facilitator served on 127.0.0.1, with a switch for outage tests. */
export type FacilitatorServer = {
  /** Base URL to hand to HTTPFacilitatorClient (no trailing slash). */
  url: string;
  /** Changes how every later request is answered. */
  setMode(mode: FacilitatorMode): void;
  /** Stops listening and drops open connections; later requests are refused. */
  close(): Promise<void>;
};

/** Builds an in-process FacilitatorClient: x402Facilitator with the exact-EVM scheme for Base, settling on `ledger`. */
export function createLocalFacilitator(ledger: UsdcLedger): FacilitatorClient {
  const facilitator = new x402Facilitator().register(BASE_NETWORK, new ExactEvmScheme(ledger));
  return {
    verify: (payload, requirements) => facilitator.verify(payload, requirements),
    settle: (payload, requirements) => facilitator.settle(payload, requirements),
    // x402Facilitator types networks as plain strings; every kind it lists was registered above as a CAIP-2 Network.
    getSupported: async () => facilitator.getSupported() as SupportedResponse,
  };
}

/** Serves `facilitator` with the x402 facilitator wire API (POST /verify, POST /settle, GET /supported) on a free loopback port. */
export async function serveFacilitator(
  facilitator: FacilitatorClient,
  options: { slowMs?: number } = {},
): Promise<FacilitatorServer> {
  const slowMs = options.slowMs ?? 5_000;
  let mode: FacilitatorMode = "ok";
  const app = new H3()
    .use(async (event) => {
      if (mode === "down") return new Response("facilitator down", { status: 503 });
      if (mode === "slow") await sleep(slowMs);
      if (mode === "reject" && event.url.pathname !== "/supported") return Response.json({ error: "request refused" }, { status: 400 });
    })
    .get("/supported", () => facilitator.getSupported())
    .post("/verify", async (event) => {
      const { paymentPayload, paymentRequirements } = await readFacilitatorRequest(event);
      return facilitator.verify(paymentPayload, paymentRequirements);
    })
    .post("/settle", async (event) => {
      const { paymentPayload, paymentRequirements } = await readFacilitatorRequest(event);
      return facilitator.settle(paymentPayload, paymentRequirements);
    });
  const server = serve(app, { port: 0, hostname: "127.0.0.1", silent: true });
  await server.ready();
  return {
    url: new URL(server.url ?? "").origin,
    setMode: (next) => void (mode = next),
    close: () => server.close(true),
  };
}

// The request body of /verify and /settle (x402 spec §7): validated with x402's own v2 guards, since the shapes are the protocol's.
async function readFacilitatorRequest(
  event: H3Event,
): Promise<{ paymentPayload: PaymentPayload; paymentRequirements: PaymentRequirements }> {
  const body = await readBody<{ paymentPayload?: unknown; paymentRequirements?: unknown }>(event);
  const { paymentPayload, paymentRequirements } = body ?? {};
  if (!isPaymentPayloadV2(paymentPayload) || !isPaymentRequirementsV2(paymentRequirements)) {
    throw new HTTPError({ status: 400, message: "body must be {x402Version, paymentPayload, paymentRequirements}" });
  }
  // The guards' zod-3 types say `network: string`; core's types narrow it to CAIP-2, which the facilitator checks on lookup.
  return { paymentPayload: paymentPayload as PaymentPayload, paymentRequirements: paymentRequirements as PaymentRequirements };
}

// unref'd so a slow request abandoned by close() cannot keep the process alive.
function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
