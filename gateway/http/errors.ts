// Gateway errors: one class carrying a stable code (schemas/errors.ts), rendered in one place as the error body.
// No stack trace or internal message ever reaches a client.
import { ERROR_CODES, type ErrorBody, type ErrorCode } from "../../schemas/errors.ts";
import { CORS_HEADERS } from "./cors.ts";

/** An error the pipeline throws on purpose; its code decides status and default hint. */
export class ApiError extends Error {
  override readonly name = "ApiError";
  readonly code: ErrorCode;
  readonly status: number;
  readonly hint: string;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, options: { hint?: string; headers?: Record<string, string>; status?: number } = {}) {
    super(message);
    this.code = code;
    this.status = options.status ?? ERROR_CODES[code].status;
    this.hint = options.hint ?? ERROR_CODES[code].hint;
    this.headers = options.headers ?? {};
  }
}

/** The error body for a code and message, with the code's hint. */
export function errorBody(code: ErrorCode, message: string): ErrorBody {
  return { error: { code, message, hint: ERROR_CODES[code].hint } };
}

/** Any failure as an ApiError: an unexpected one becomes internal_error, without its details. */
export function asApiError(error: unknown): ApiError {
  return error instanceof ApiError ? error : new ApiError("internal_error", "The service failed to answer this request.");
}

/** A failure of the client's own making: it closed the connection or aborted the request while the gateway read it. */
export function clientAborted(error: unknown): boolean {
  const { code, name } = (error ?? {}) as { code?: unknown; name?: unknown };
  return code === "ECONNRESET" || name === "AbortError";
}

/** Echoes a client's text safely in a message: printable ASCII only, bounded. */
export function printable(text: string): string {
  const clean = text.replace(/[^\x20-\x7e]/g, "?");
  return clean.length > 40 ? `${clean.slice(0, 40)}…` : clean;
}

/** The JSON error body for an error (HTTP); MCP tools carry the same body in their error results. */
export function errorResponse(error: unknown): Response {
  const api = asApiError(error);
  const body: ErrorBody = { error: { code: api.code, message: api.message, hint: api.hint } };
  return new Response(JSON.stringify(body), {
    status: api.status,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...CORS_HEADERS, ...api.headers },
  });
}
