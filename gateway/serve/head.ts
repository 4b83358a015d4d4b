// HEAD answers: a response's status and headers without its body (RFC 9110 §9.3.2).

/** The response with its body dropped and its length kept in Content-Length, as the GET would send it. */
export async function withoutBody(response: Response): Promise<Response> {
  const length = (await response.arrayBuffer()).byteLength;
  const headers = new Headers(response.headers);
  headers.set("content-length", String(length));
  return new Response(null, { status: response.status, statusText: response.statusText, headers });
}
