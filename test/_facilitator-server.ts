// A facilitator on a loopback port for tests: any FacilitatorClient (the dev one over the in-memory ledger) behind
// the x402 facilitator wire API, with a switch to make it slow, down or refusing, and one to add extension responses.
import { H3, HTTPError, readBody, serve, type H3Event } from "h3";
import { isPaymentPayloadV2, isPaymentRequirementsV2 } from "@x402/core/schemas";
import type { FacilitatorClient } from "@x402/core/server";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";

/** How the loopback facilitator answers: normally, after a long pause, 503 to everything, or 400 without a verdict to /verify and /settle. */
export type FacilitatorMode = "ok" | "slow" | "down" | "reject";

/** A facilitator served on 127.0.0.1, with a switch for outage tests. */
export type FacilitatorServer = {
  /** Base URL to hand to HTTPFacilitatorClient (no trailing slash). */
  url: string;
  /** Changes how every later request is answered. */
  setMode(mode: FacilitatorMode): void;
  /** Sends `responses` (null: nothing) as the EXTENSION-RESPONSES header of every later /verify and /settle answer. */
  setExtensionResponses(responses: Record<string, unknown> | null): void;
  /** Stops listening and drops open connections; later requests are refused. */
  close(): Promise<void>;
};

/** Serves `facilitator` with the x402 facilitator wire API (POST /verify, POST /settle, GET /supported) on a free loopback port. */
export async function serveFacilitator(
  facilitator: FacilitatorClient,
  options: { slowMs?: number } = {},
): Promise<FacilitatorServer> {
  const slowMs = options.slowMs ?? 5_000;
  let mode: FacilitatorMode = "ok";
  let extensions: string | null = null;
  const app = new H3({
    silent: true,
    // A request its client gave up on (a slow-mode call past the client's timeout, a server closed under it) ends in an
    // abort once its handler goes on: expected, and in a worker that outlives the file it would print into the next one.
    onError: (error, event) => {
      if (error.unhandled && !event.req.signal.aborted) console.error(error);
    },
  })
    .use(async (event) => {
      if (mode === "down") return new Response("facilitator down", { status: 503 });
      if (mode === "slow") await sleep(slowMs);
      if (mode === "reject" && event.url.pathname !== "/supported") return Response.json({ error: "request refused" }, { status: 400 });
      if (extensions !== null && event.url.pathname !== "/supported") event.res.headers.set("extension-responses", extensions);
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
    setExtensionResponses: (responses) => void (extensions = responses && Buffer.from(JSON.stringify(responses)).toString("base64")),
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
