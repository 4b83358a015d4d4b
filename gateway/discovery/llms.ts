// /llms.txt: a plain-text guide for language models (llmstxt.org style), generated from the route table.
import { z } from "zod";
import { NETWORK, ROUTES, SERVICE, SUBSCRIPTION, USDC_BASE, usdToAtomic } from "../../schemas/api.ts";
import { Meta } from "../../schemas/envelope.ts";

/** The guide for a deployment at `publicBaseUrl`. */
export function buildLlmsTxt(publicBaseUrl: string): string {
  const lines = [
    `# ${SERVICE.name}`,
    "",
    `> ${SERVICE.description}`,
    "",
    "Start with the free coverage probe: `GET /probe?ticker=AAPL`. When `data.ticker_coverage.covered` is false, the paid " +
      "endpoints answer 404 for that ticker and must not be paid for. `GET /tickers` (free) lists every covered ticker. " +
      "Responses are `{data, meta}`; errors are `{error: {code, message, hint}}`.",
    "",
    "## Freshness",
    "",
    "While the follower runs (`GET /probe`: `data.follower.state`), a new filing is published within about a minute of EDGAR accepting it. Every answer's `meta` says how fresh it is:",
    ...(["changed_at", "accepted_at", "source_accession", "built_at", "snapshot"] as const).map((field) => `- \`${field}\`: ${fieldDescription(field)}`),
    "- `GET /probe` shows the follower that publishes them (its last poll of EDGAR and its lag); `GET /probe?ticker=…` the last filing it published for the ticker.",
    "",
    "## Endpoints",
    "",
    ...ROUTES.map((route) => {
      const price = route.price ? `${route.price} per call (${usdToAtomic(route.price)} USDC atomic units)` : "free";
      // A free route's description says "Free." for OpenAPI, which states no price; here the price is said once, first.
      const description = route.price ? route.description : route.description.replace(/(^|\s)Free\.(?=\s|$)/, "").trim();
      const params = describeParams(route.query);
      return `- [GET ${route.path}](${publicBaseUrl}${route.path}): ${route.summary} — ${price}. ${description}${params ? ` Parameters: ${params}.` : ""}`;
    }),
    "",
    "## Paying per call (x402 v2)",
    "",
    `- Call a paid endpoint without payment: the answer is HTTP 402 and the base64 header \`PAYMENT-REQUIRED\` holds the requirements (scheme \`exact\`, network \`${NETWORK}\` (Base), asset USDC \`${USDC_BASE}\`, the amount, payTo).`,
    "- Sign an EIP-3009 transferWithAuthorization for exactly those requirements and retry the identical request with the base64 payment payload in the `PAYMENT-SIGNATURE` header.",
    "- A 200 carries `PAYMENT-RESPONSE` (the settlement receipt). Nothing is charged for errors (400, 401, 404, 503) or empty answers; a signature is single-use.",
    "- A malformed or refused payment is a 402 whose `PAYMENT-REQUIRED` `error` says why (`invalid_payload: …`, `payment_mismatch: …`, `invalid_exact_evm_…`); 503 `facilitator_unavailable` means retry later, nothing was charged.",
    "- Lost an answer? Name each payment with the x402 `payment-identifier` extension (`extensions[\"payment-identifier\"].info.id`, 16-128 of `A-Za-z0-9_-`): the same request with the same id within 15 minutes (the same payload, or a newly signed one) returns the same answer and receipt, charged once; the id on another request is 409 `idempotency_conflict`.",
    "",
    "## Connecting over MCP",
    "",
    `One endpoint, ${publicBaseUrl}/mcp (streamable HTTP, POST, stateless, JSON answers), serves both protocol generations:`,
    "- MCP 2026-07-28 (no initialize, no session): `server/discover`, then every request carries `_meta[\"io.modelcontextprotocol/protocolVersion\"]: \"2026-07-28\"` and `_meta[\"io.modelcontextprotocol/clientCapabilities\"]`, with the headers `MCP-Protocol-Version: 2026-07-28`, `Mcp-Method` and, for tools/call, `Mcp-Name` (the tool). Results carry `resultType`; the tool list may be cached an hour (`ttlMs`, `cacheScope: public`). The official v2 TypeScript client does all this with `versionNegotiation: {mode: {pin: \"2026-07-28\"}}` (or `\"auto\"`).",
    "- MCP 2025-11-25, 2025-06-18 and 2025-03-26: `initialize`, then the methods, each POST with `Accept: application/json, text/event-stream`. No session is kept; GET and DELETE answer 405.",
    "- A client that speaks only stdio: `npx mcp-remote " + publicBaseUrl + "/mcp` (add `--header-file FILE` with a line `Authorization: Bearer <key>` to use a key).",
    "- List the tools first: each states its price, the size of its answer and the parameters that narrow it. A list answer says `meta.total` (rows matched) and `meta.next_offset`; call again with `offset` set to it for the next page. The tools' own `limit` defaults keep a default answer within an agent host's tool-result cap (25,000 tokens).",
    "",
    "## Paying over MCP (x402 specs/transports-v2/mcp.md)",
    "",
    `1. Connect (above) and list the tools. Paid tools declare an \`outputSchema\` that admits both the answer ({data, meta}) and the PaymentRequired.`,
    "2. Call a paid tool without payment: the result has `isError: true`; `structuredContent` is the x402 PaymentRequired (`{\"x402Version\":2,\"error\":\"Payment required\",\"resource\":{…},\"accepts\":[{\"scheme\":\"exact\",\"network\":\"eip155:8453\",\"amount\":…}],\"extensions\":{…}}`), `content[0].text` exactly its JSON, `content[1].text` the error body.",
    "3. Sign the requirements (EIP-3009, as for HTTP) and call the tool again with the PaymentPayload object in `params._meta[\"x402/payment\"]`.",
    "4. The answer: `structuredContent` {data, meta} (the same JSON in `content[0].text`) and the receipt in `_meta[\"x402/payment-response\"]` (`{success, transaction, network, payer}`).",
    "5. A refusal repeats step 2 with the reason in the PaymentRequired's `error`; a failed settlement adds `_meta[\"x402/payment-response\"]` with `success: false` and sends no data. Other errors are `{error: {code, message, hint}}` in `content[0].text`.",
    "6. With a payment identifier, a repeated call returns the same answer and receipt without a second charge. The API key (Authorization header of the MCP request) replaces all of this.",
    "7. On 2026-07-28, a client that can read x402's extension binding lists `org.x402/payment` in `_meta[\"io.modelcontextprotocol/clientCapabilities\"].extensions` (server/discover advertises it): a refusal is then the result `{resultType: \"payment_required\", paymentRequired: <the PaymentRequired>}` instead of step 2's tool error; steps 3–6 are unchanged.",
    "",
    "## Paying by subscription",
    "",
    `- USD ${SUBSCRIPTION.usd_per_month} a month, unlimited calls to every data endpoint and MCP tool with one API key.`,
    "- Send it as `Authorization: Bearer <key>` or `X-API-Key: <key>`. An invalid key is 401 `invalid_api_key`, never a payment request.",
    `- Subscribe in a browser at [GET /subscribe](${publicBaseUrl}/subscribe) (card, Stripe Checkout); the key is shown once on the page Stripe returns to. ` +
      "`POST /billing/portal` with the key answers a Stripe Billing Portal link to cancel, change the card or get invoices.",
    "",
    "## Machine-readable",
    "",
    `- [OpenAPI 3.1](${publicBaseUrl}/openapi.json): every endpoint, parameter, schema, status and price.`,
    `- [MCP](${publicBaseUrl}/mcp): streamable HTTP (POST, stateless; MCP 2026-07-28 and 2025). Tools: ${ROUTES.filter((r) => r.tool).map((r) => `\`${r.tool}\``).join(", ")}. ` +
      'Paid tools take the API key in the Authorization header of the MCP request, or x402 per the MCP transport (`_meta["x402/payment"]`).',
    "",
  ];
  return lines.join("\n");
}

/** "ticker (required), form, limit (default 20)" from a route's query schema. */
function describeParams(query: z.ZodObject): string {
  return Object.entries(query.shape)
    .map(([name, schema]) => {
      const s = schema as z.ZodType;
      const meta = s.meta() as { description?: string; default?: unknown } | undefined;
      const optional = s.safeParse(undefined).success;
      const notes = [optional ? (meta?.default !== undefined ? `default ${meta.default}` : "optional") : "required"];
      return `\`${name}\` (${notes.join(", ")})${meta?.description ? `: ${meta.description.replace(/\.$/, "")}` : ""}`;
    })
    .join("; ");
}

/** A meta field's description, from the envelope schema. */
function fieldDescription(field: keyof typeof Meta.shape): string {
  return (Meta.shape[field] as z.ZodType).meta()?.description ?? "";
}
