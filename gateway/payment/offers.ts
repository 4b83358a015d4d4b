// What each paid route asks for, per transport: the x402 v2 PaymentRequired (the service's resource metadata, the
// exact-EVM requirements, Bazaar discovery, payment-identifier), built once after the facilitator first answered.
import type { x402ResourceServer } from "@x402/core/server";
import type { PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { declareDiscoveryExtension } from "@x402/extensions/bazaar";
import { declarePaymentIdentifierExtension, PAYMENT_IDENTIFIER } from "@x402/extensions/payment-identifier";
import { NETWORK, PAID_ROUTES, SERVICE, type PaidRoute } from "../../schemas/api.ts";
import { queryInputSchema, toolInputSchema } from "../../schemas/tool-schema.ts";

/** How a paid call arrived: an HTTP route or an MCP tool. */
export type Transport = "http" | "mcp";

/** Why the first call of a payment flow is refused (`PaymentRequired.error`). */
export const PAYMENT_REQUIRED = "Payment required";

/** How long an authorization may stay valid, in seconds: the client signs validBefore = now + this; longer is refused (window.ts). */
const MAX_TIMEOUT_SECONDS = 300;

/** The PaymentRequired of every paid route, for HTTP and for MCP. */
export class PaymentOffers {
  readonly #server: x402ResourceServer;
  readonly #payTo: string;
  readonly #baseUrl: string;
  #offers: Map<PaidRoute, Record<Transport, PaymentRequired>> | null = null;

  constructor(server: x402ResourceServer, options: { payTo: string; publicBaseUrl: string }) {
    this.#server = server;
    this.#payTo = options.payTo;
    this.#baseUrl = options.publicBaseUrl;
  }

  /** Builds every offer; needs the resource server initialised (the facilitator's supported kinds). */
  async build(): Promise<void> {
    const offers = new Map<PaidRoute, Record<Transport, PaymentRequired>>();
    for (const route of PAID_ROUTES) {
      const accepts = await this.#server.buildPaymentRequirements({
        scheme: "exact",
        network: NETWORK,
        payTo: this.#payTo,
        price: route.price,
        maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
      });
      offers.set(route, { http: await this.#offer(route, "http", accepts), mcp: await this.#offer(route, "mcp", accepts) });
    }
    this.#offers = offers;
  }

  /**
   * The route's PaymentRequired for a transport, with `reason` as its `error`. The plain "Payment required" offer is
   * one shared object (the transports may remember its encoding): never change what this returns.
   */
  required(route: PaidRoute, transport: Transport, reason: string): PaymentRequired {
    const offer = this.#offers?.get(route)?.[transport];
    if (!offer) throw new Error(`no x402 offer built for ${route.path}`);
    return reason === PAYMENT_REQUIRED ? offer : { ...offer, error: reason };
  }

  #offer(route: PaidRoute, transport: Transport, accepts: PaymentRequirements[]): Promise<PaymentRequired> {
    const service = { mimeType: "application/json", serviceName: SERVICE.name, tags: [...SERVICE.tags] };
    // Bazaar catalogues an MCP tool by the pair (server URL, tool name) and an HTTP route by its URL and method.
    const resource =
      transport === "http"
        ? { url: `${this.#baseUrl}${route.path}`, description: route.summary, ...service }
        : { url: `${this.#baseUrl}/mcp`, description: `${route.summary} (MCP tool ${route.tool})`, ...service };
    const inputSchema = transport === "http" ? queryInputSchema(route) : toolInputSchema(route);
    // For HTTP, the bazaar extension adds the method from a request's context: here, the route's own (notes §4).
    const discovery =
      transport === "http"
        ? this.#server.enrichExtensions(declareDiscoveryExtension({ input: route.example, inputSchema }), routeContext(route))
        : declareDiscoveryExtension({ toolName: route.tool, description: route.description, transport: "streamable-http", inputSchema, example: route.example });
    const extensions = { ...discovery, [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension(false) };
    return this.#server.createPaymentRequiredResponse(accepts, resource, PAYMENT_REQUIRED, extensions);
  }
}

/** The HTTP request context of the route itself, as @x402/core hands one to its extensions. */
function routeContext(route: PaidRoute) {
  return { method: route.method, path: route.path, adapter: { getMethod: () => route.method, getPath: () => route.path } };
}
