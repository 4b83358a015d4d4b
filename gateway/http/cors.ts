// CORS for browser clients: any origin may call (the data is public and payment is per request); the x402
// and key headers may be sent, and the x402 headers may be read where a response carries them.

/** Added to every response. */
export const ALLOW_ORIGIN: Readonly<Record<string, string>> = { "access-control-allow-origin": "*" };

/** Added to every response that may carry a header a browser script needs to read: errors, x402-paid answers. */
export const CORS_HEADERS: Readonly<Record<string, string>> = {
  ...ALLOW_ORIGIN,
  "access-control-expose-headers": "PAYMENT-REQUIRED, PAYMENT-RESPONSE, Idempotent-Replayed, Retry-After",
};

/** The answer to a preflight (OPTIONS) request. */
export function preflight(): Response {
  return new Response(null, {
    status: 204,
    headers: {
      ...CORS_HEADERS,
      "access-control-allow-methods": "GET, POST, OPTIONS",
      "access-control-allow-headers": "PAYMENT-SIGNATURE, Authorization, X-API-Key, Content-Type, Accept, Mcp-Protocol-Version, If-None-Match",
      "access-control-max-age": "86400",
    },
  });
}

/** Adds the CORS headers to a response built elsewhere (MCP transport, billing pages). */
export function withCors(response: Response): Response {
  for (const [name, value] of Object.entries(CORS_HEADERS)) response.headers.set(name, value);
  return response;
}
