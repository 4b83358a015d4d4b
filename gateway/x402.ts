// x402 v2 for the paid routes: the resource server built from the route table, a thin h3 adapter for
// @x402/core's x402HTTPResourceServer, and a guard that turns a facilitator outage into "unavailable", not "unpaid".
import { ExactEvmScheme } from "@x402/evm/exact/server";
import {
  FacilitatorResponseError,
  FacilitatorTimeoutError,
  x402HTTPResourceServer,
  x402ResourceServer,
  type FacilitatorClient,
  type HTTPAdapter,
  type RoutesConfig,
} from "@x402/core/server";
import { SettleError, VerifyError } from "@x402/core/types";
import { bazaarResourceServerExtension, declareDiscoveryExtension } from "@x402/extensions/bazaar";
import { z } from "zod";
import type { H3Event } from "h3";
import { NETWORK, PAID_ROUTES, type PaidRoute } from "../schemas/api.ts";
import { envelope } from "../schemas/envelope.ts";
import type { ErrorBody } from "../schemas/errors.ts";

/** What a client sees in the body of a 402 (the requirements themselves are only in PAYMENT-REQUIRED, spec 7). */
export const PAYMENT_REQUIRED_BODY: ErrorBody = {
  error: {
    code: "payment_required",
    message: "This endpoint is paid per call with x402 v2; the payment requirements are in the PAYMENT-REQUIRED header.",
    hint: "Sign the requirements (USDC on Base, scheme exact) and retry with PAYMENT-SIGNATURE, or send an API key.",
  },
};

/** Builds the x402 HTTP resource server for every paid route of the table. */
export function createPaymentServer(options: { payTo: string; publicBaseUrl: string; facilitator: FacilitatorClient }): x402HTTPResourceServer {
  const routes: RoutesConfig = Object.fromEntries(
    PAID_ROUTES.map((route) => [
      `${route.method} ${route.path}`,
      {
        accepts: { scheme: "exact", network: NETWORK, payTo: options.payTo, price: route.price, maxTimeoutSeconds: 300 },
        resource: `${options.publicBaseUrl}${route.path}`,
        description: route.summary,
        mimeType: "application/json",
        unpaidResponseBody: () => ({ contentType: "application/json", body: PAYMENT_REQUIRED_BODY }),
        extensions: discovery(route),
      },
    ]),
  );
  const server = new x402ResourceServer(options.facilitator).register(NETWORK, new ExactEvmScheme());
  // Without the extension registered, the bazaar block lacks info.input.method (x402-mcp notes §4).
  server.registerExtension(bazaarResourceServerExtension);
  return new x402HTTPResourceServer(server, routes);
}

/** x402 Bazaar discovery metadata for a paid route: its query (JSON Schema from the zod schema) and its output. */
export function discovery(route: PaidRoute): Record<string, unknown> {
  return declareDiscoveryExtension({
    input: { ticker: "AAPL" },
    inputSchema: z.toJSONSchema(route.query, { io: "input", unrepresentable: "any" }) as Record<string, unknown>,
    output: { schema: z.toJSONSchema(envelope(route.payload), { io: "output", unrepresentable: "any" }) as Record<string, unknown> },
  });
}

/** The h3 event as @x402/core's framework-agnostic HTTPAdapter (a port of the hono adapter's shape). */
export class H3Adapter implements HTTPAdapter {
  readonly #event: H3Event;
  constructor(event: H3Event) {
    this.#event = event;
  }
  getHeader(name: string): string | undefined {
    return this.#event.req.headers.get(name) ?? undefined;
  }
  getMethod(): string {
    return this.#event.req.method;
  }
  getPath(): string {
    return this.#event.url.pathname;
  }
  getUrl(): string {
    return this.#event.req.url;
  }
  getAcceptHeader(): string {
    return this.getHeader("accept") ?? "";
  }
  getUserAgent(): string {
    return this.getHeader("user-agent") ?? "";
  }
  getQueryParams(): Record<string, string | string[]> {
    const out: Record<string, string | string[]> = {};
    for (const key of new Set(this.#event.url.searchParams.keys())) {
      const all = this.#event.url.searchParams.getAll(key);
      out[key] = all.length > 1 ? all : all[0]!;
    }
    return out;
  }
  getQueryParam(name: string): string | string[] | undefined {
    return this.getQueryParams()[name];
  }
}

/**
 * Wraps a facilitator so that a deadline passing, a network error or a non-protocol answer (a 5xx page) is a
 * FacilitatorResponseError, which @x402/core rethrows instead of answering 402 (x402-mcp notes §10): the
 * gateway turns it into 503 facilitator_unavailable. A protocol "invalid" (VerifyError/SettleError) passes through.
 */
export function guardFacilitator(inner: FacilitatorClient, timeoutMs: number): FacilitatorClient {
  const guard = <T>(operation: string, run: () => Promise<T>): Promise<T> => {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new FacilitatorTimeoutError(operation, timeoutMs)), timeoutMs);
    });
    return Promise.race([run(), deadline])
      .catch((error: unknown) => {
        if (error instanceof FacilitatorResponseError || error instanceof VerifyError || error instanceof SettleError) throw error;
        throw new FacilitatorResponseError(`Facilitator ${operation} failed: ${(error as Error)?.message ?? String(error)}`);
      })
      .finally(() => clearTimeout(timer));
  };
  return {
    verify: (payload, requirements) => guard("verify", () => inner.verify(payload, requirements)),
    settle: (payload, requirements) => guard("settle", () => inner.settle(payload, requirements)),
    getSupported: () => guard("supported", () => inner.getSupported()),
  };
}
