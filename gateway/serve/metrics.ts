// The gateway's metrics (issue 42), scraped on METRICS_PORT: requests by route and status with their latency and bytes,
// calls by how they were paid and what came of it, settlements and settled USD, refusals by reason, the facilitator's
// latency and failures, the document cache, MCP tool calls, and the snapshot served with its age. Per-request counts
// are plain numbers handed over when scraped (TallyCounter, TallyHistogram): the hot path pays a map lookup or two.
import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import type { EventLog } from "../../logging/log.ts";
import { countEvents, createRegistry, PREFIX, TallyCounter, TallyHistogram, type CounterSeries, type HistogramSeries } from "../../logging/metrics.ts";
import type { CallRecord } from "../payment/call-record.ts";
import type { FacilitatorFailure } from "../payment/facilitator.ts";
import type { SnapshotStore } from "./snapshot.ts";

/** Request latency buckets (s): the keyed hot path answers in well under a millisecond, a paid call waits on the chain. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Facilitator call buckets (s), up to its deadline (FACILITATOR_TIMEOUT_MS, 10 s by default). */
const FACILITATOR_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30];
/** Methods counted by name; any other is OTHER (a label's values stay few whatever clients send). */
const METHODS = ["GET", "HEAD", "POST", "OPTIONS", "PUT", "PATCH", "DELETE"];
/** Distinct refusal reasons counted by name; past this many, `other` (a facilitator's reasons are its own words). */
const MAX_REASONS = 64;
/** A request no route matched. */
const UNMATCHED = "unmatched";

/** A route's series, held once made: its requests by status and method, its calls by how paid and outcome, bytes, latency. */
interface RouteSeries {
  route: string;
  answered: Map<number, CounterSeries>;
  /** By transport, how paid, then outcome. */
  calls: Map<string, Map<string, Map<string, CounterSeries>>>;
  bytes: CounterSeries;
  latency: HistogramSeries;
}

/** The gateway's registry and what feeds it. */
export class GatewayMetrics {
  readonly registry: Registry;
  readonly #requests: TallyCounter;
  readonly #bytes: TallyCounter;
  readonly #latency: TallyHistogram;
  readonly #calls: TallyCounter;
  readonly #refusals: TallyCounter;
  readonly #tools: TallyCounter;
  readonly #settlements: Counter<"route" | "transport">;
  readonly #settledUsd: Counter<"route" | "transport">;
  readonly #facilitatorSeconds: Histogram<"operation">;
  readonly #facilitatorFailures: Counter<"operation" | "kind">;
  /** Each route's series, made once: the hot path looks a route up by its path (the route table's own string). */
  readonly #routes = new Map<string, RouteSeries>();
  readonly #reasons = new Set<string>();

  constructor() {
    const registry = (this.registry = createRegistry({ process: true }));
    const registers = [registry];
    this.#requests = new TallyCounter(registry, `${PREFIX}http_requests_total`, "HTTP requests answered, by route, method and status.", ["route", "method", "status"]);
    this.#bytes = new TallyCounter(registry, `${PREFIX}http_response_bytes_total`, "Response body bytes written, by route.", ["route"]);
    this.#latency = new TallyHistogram(
      registry,
      `${PREFIX}http_request_duration_seconds`,
      "From a request's headers read to its answer handed to the socket, by route.",
      LATENCY_BUCKETS,
    );
    this.#calls = new TallyCounter(
      registry,
      `${PREFIX}calls_total`,
      "Calls of the data routes and MCP tools, by route, transport, how they were paid (key, x402, none, free) and the payment's outcome.",
      ["route", "transport", "paid_by", "payment"],
    );
    this.#refusals = new TallyCounter(registry, `${PREFIX}payment_refusals_total`, "Payments and keys refused, by route, transport and reason.", ["route", "transport", "reason"]);
    this.#tools = new TallyCounter(registry, `${PREFIX}mcp_tool_calls_total`, "MCP tool calls, by tool and result (ok, error, payment_required).", ["tool", "result"]);
    this.#settlements = new Counter({ name: `${PREFIX}settlements_total`, help: "x402 payments settled, by route and transport.", labelNames: ["route", "transport"], registers });
    this.#settledUsd = new Counter({ name: `${PREFIX}settled_usd_total`, help: "USD (USDC) settled, by route and transport.", labelNames: ["route", "transport"], registers });
    this.#facilitatorSeconds = new Histogram({
      name: `${PREFIX}facilitator_request_duration_seconds`,
      help: "Facilitator calls' duration, by operation (supported, verify, settle), failures included.",
      labelNames: ["operation"],
      buckets: FACILITATOR_BUCKETS,
      registers,
    });
    this.#facilitatorFailures = new Counter({
      name: `${PREFIX}facilitator_failures_total`,
      help: "Facilitator calls that failed, by operation and kind (timeout, unavailable: 503 to the client; rejected: it refused the request; settlement_failed).",
      labelNames: ["operation", "kind"],
      registers,
    });
  }

  /** The log, its warn and error lines counted by event (what failed, from a scrape alone). */
  counting(log: EventLog): EventLog {
    return countEvents(this.registry, log);
  }

  /** Reports the snapshot `snapshots` serves and its document cache (once, at wiring). */
  watch(snapshots: SnapshotStore): void {
    snapshotGauges(this.registry, snapshots);
  }

  /** One request answered: by route, method and status; its latency and bytes by route; then each of its calls. */
  request(route: string | null, method: string, status: number, seconds: number, bytes: number, calls: readonly CallRecord[] | null): void {
    const series = this.#route(route ?? UNMATCHED);
    const verb = METHODS.indexOf(method);
    const code = status * (METHODS.length + 1) + (verb < 0 ? METHODS.length : verb);
    let answered = series.answered.get(code);
    if (!answered) {
      const labels = { route: series.route, method: verb < 0 ? "OTHER" : method, status: String(status) };
      series.answered.set(code, (answered = this.#requests.series(`${labels.route} ${labels.method} ${labels.status}`, () => labels)));
    }
    answered.add();
    series.bytes.add(bytes);
    series.latency.observe(seconds);
    if (calls) for (const call of calls) this.#call(call);
  }

  /** One facilitator call: its duration, and how it failed (null when it answered, whatever its verdict). */
  facilitator(operation: string, seconds: number, failure: FacilitatorFailure | null): void {
    this.#facilitatorSeconds.observe({ operation }, seconds);
    if (failure) this.#facilitatorFailures.inc({ operation, kind: failure });
  }

  #route(route: string): RouteSeries {
    let series = this.#routes.get(route);
    if (!series) {
      const labels = { route };
      series = { route, answered: new Map(), calls: new Map(), bytes: this.#bytes.series(route, () => labels), latency: this.#latency.series(route, () => labels) };
      this.#routes.set(route, series);
    }
    return series;
  }

  #call(call: CallRecord): void {
    const { route, transport, paidBy } = call;
    const payment = call.outcome ?? "none";
    // By nested maps of the record's own constants: no key string made per call.
    const byPayment = within(within(this.#route(route).calls, transport), paidBy);
    let calls = byPayment.get(payment);
    if (!calls) byPayment.set(payment, (calls = this.#calls.series(`${route} ${transport} ${paidBy} ${payment}`, () => ({ route, transport, paid_by: paidBy, payment }))));
    calls.add();
    if (payment === "settled") {
      this.#settlements.inc({ route, transport });
      this.#settledUsd.inc({ route, transport }, call.atomic / 1e6);
    }
    if (payment === "refused" && call.reason !== null) {
      const reason = this.#reasonLabel(call.reason);
      this.#refusals.add(`${route} ${transport} ${reason}`, 1, () => ({ route, transport, reason }));
    }
    if (call.tool !== null && call.result !== null) {
      const { tool, result } = call;
      this.#tools.add(`${tool} ${result}`, 1, () => ({ tool, result }));
    }
  }

  /** A reason as a label: its code (the text before any colon), snake case, bounded in length and in number. */
  #reasonLabel(reason: string): string {
    const code = reason.split(":")[0]!.trim().toLowerCase().replace(/[^a-z0-9]+/g, "_").slice(0, 64) || "unknown";
    if (this.#reasons.has(code)) return code;
    if (this.#reasons.size >= MAX_REASONS) return "other";
    this.#reasons.add(code);
    return code;
  }
}

/** The map `map` holds under `key`, made when first asked for. */
function within<V extends Map<string, unknown>>(map: Map<string, V>, key: string): V {
  let inner = map.get(key);
  if (!inner) map.set(key, (inner = new Map() as V));
  return inner;
}

/** The snapshot served (its build id, its age) and the document cache, read from the store when scraped. */
function snapshotGauges(registry: Registry, snapshots: SnapshotStore): void {
  const registers = [registry];
  new Gauge({
    name: `${PREFIX}snapshot_info`,
    help: "The snapshot being served: 1, its build id as a label (none before the first load).",
    labelNames: ["build_id"],
    registers,
    collect() {
      this.reset();
      const held = snapshots.held;
      if (held) this.set({ build_id: held.pointer.build_id }, 1);
    },
  });
  new Gauge({
    name: `${PREFIX}snapshot_age_seconds`,
    help: "Seconds since the snapshot being served was built (absent before the first load).",
    registers,
    collect() {
      this.reset();
      const held = snapshots.held;
      if (held) this.set((Date.now() - Date.parse(held.pointer.built_at)) / 1000);
    },
  });
  new Counter({
    name: `${PREFIX}document_cache_requests_total`,
    help: "Documents asked of the in-memory cache, by result (hit: from memory; miss: read from storage).",
    labelNames: ["result"],
    registers,
    collect() {
      const { hits, misses } = snapshots.cacheStats;
      this.reset();
      this.inc({ result: "hit" }, hits);
      this.inc({ result: "miss" }, misses);
    },
  });
  new Gauge({
    name: `${PREFIX}document_cache_bytes`,
    help: "Bytes the document cache holds (its budget: DOCUMENT_CACHE_MB).",
    registers,
    collect() {
      this.set(snapshots.cacheStats.bytes);
    },
  });
}
