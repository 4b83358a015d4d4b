// /llms.txt: a plain-text guide for language models (llmstxt.org style), generated from the route table.
import { z } from "zod";
import { NETWORK, ROUTES, SUBSCRIPTION, USDC_BASE, usdToAtomic } from "../schemas/api.ts";

/** The guide for a deployment at `publicBaseUrl`. */
export function buildLlmsTxt(publicBaseUrl: string): string {
  const lines = [
    "# Filing Data Service",
    "",
    "> US public-company filing data from SEC EDGAR as JSON: a filings index, earnings derived from XBRL company facts " +
      "(restatements resolved, fiscal labels of the original filing, Q4 derived and marked), financial statements (balance " +
      "sheet, cash flow as discrete quarters, trailing twelve months) on the same periods, and Form 4 insider transactions. " +
      "Every value carries the accession number of the filing it came from.",
    "",
    "Start with the free coverage probe: `GET /probe?ticker=AAPL`. When `data.ticker_coverage.covered` is false, the paid " +
      "endpoints answer 404 for that ticker and must not be paid for. `GET /tickers` (free) lists every covered ticker. " +
      "Responses are `{data, meta}`; errors are `{error: {code, message, hint}}`.",
    "",
    "## Endpoints",
    "",
    ...ROUTES.map((route) => {
      const price = route.price ? `${route.price} per call (${usdToAtomic(route.price)} USDC atomic units)` : "free";
      const params = describeParams(route.query);
      return `- [GET ${route.path}](${publicBaseUrl}${route.path}): ${route.summary} — ${price}. ${route.description}${params ? ` Parameters: ${params}.` : ""}`;
    }),
    "",
    "## Paying per call (x402 v2)",
    "",
    `- Call a paid endpoint without payment: the answer is HTTP 402 and the base64 header \`PAYMENT-REQUIRED\` holds the requirements (scheme \`exact\`, network \`${NETWORK}\` (Base), asset USDC \`${USDC_BASE}\`, the amount, payTo).`,
    "- Sign an EIP-3009 transferWithAuthorization for exactly those requirements and retry the identical request with the base64 payment payload in the `PAYMENT-SIGNATURE` header.",
    "- A 200 carries `PAYMENT-RESPONSE` (the settlement receipt). Nothing is charged for errors (400, 401, 404, 503) or empty answers; a signature is single-use.",
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
    `- [MCP](${publicBaseUrl}/mcp): streamable HTTP (POST, stateless). Tools: ${ROUTES.filter((r) => r.tool).map((r) => `\`${r.tool}\``).join(", ")}. ` +
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
