// One HTTP request as its operator sees it (issue 42): the route it matched and the calls it made — one on a paid
// route, one per tool call over MCP — each with how it was paid and what came of it. The port (listen.ts) keeps one per
// request and writes it out, as one log line and in the metrics, once the answer is handed to the socket; the steps
// reach it through the event. A request answered through app.fetch alone (tests) has none, and nothing is noted.
import type { H3Event } from "h3";
import { CallRecord, type PaidBy } from "../payment/call-record.ts";
import type { Transport } from "../payment/offers.ts";

/** A request's record, from its headers read to its answer written. */
export class Exchange {
  /** When the request's headers were read (performance.now(), ms). */
  readonly start = performance.now();
  /** The route's path as the table writes it; null when no route matched. */
  route: string | null = null;
  /** True on a route nobody pays for: free data, discovery, subscriptions, and the MCP endpoint (its calls say more). */
  free = false;
  /** The calls made, in order; null while none. */
  calls: CallRecord[] | null = null;

  /** Opens a call of `route` (its path) over `transport`, an MCP `tool` or null. */
  call(route: string, transport: Transport, tool: string | null, paidBy: PaidBy): CallRecord {
    const record = new CallRecord(route, transport, tool, paidBy);
    (this.calls ??= []).push(record);
    return record;
  }

  /**
   * The request's log line: method, route (the path when none matched), status, duration, bytes, transport, and how
   * its one call was paid and what came of it (several calls of an MCP batch: `calls`); the snapshot served.
   */
  line(answer: Answer, served: string | null): Record<string, unknown> {
    const calls = this.calls;
    const line: Record<string, unknown> = {
      method: answer.method,
      route: this.route ?? undefined,
      path: answer.path,
      status: answer.status,
      ms: Math.round(answer.ms * 1000) / 1000,
      bytes: answer.bytes,
      transport: this.route === MCP_PATH ? "mcp" : "http",
      paid_by: this.free && calls === null ? "free" : undefined,
      snapshot: served ?? undefined,
    };
    if (calls?.length === 1) calls[0]!.fields(line);
    else if (calls) line.calls = calls.map((call) => call.fields({}));
    return line;
  }
}

/** How a request was answered, as the port saw it. */
export interface Answer {
  method: string;
  /** The path asked for (no query), printable and bounded: only when no route matched. */
  path: string | undefined;
  status: number;
  /** From the request's headers read to its answer handed to the socket. */
  ms: number;
  /** Body bytes written. */
  bytes: number;
}

/** The MCP endpoint's path: its requests' transport is MCP. */
const MCP_PATH = "/mcp";

/** The record of a request the port observes; null otherwise (app.fetch alone, or a request made inside the app). */
export function exchangeOf(event: H3Event): Exchange | null {
  return (event.runtime?.node?.res as { exchange?: Exchange } | undefined)?.exchange ?? null;
}

/** Notes the route a request matched (every registered route, in app.ts), and whether it is free. */
export function noteRoute(event: H3Event, route: string, free: boolean): void {
  const exchange = exchangeOf(event);
  if (!exchange) return;
  exchange.route = route;
  exchange.free = free;
}
