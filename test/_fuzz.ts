// The hostile suite (issue 8, grown in issue 17): random and hostile requests to every route — methods HEAD and odd
// ones included, query strings, keys, x402 payloads (malformed, or genuine with one field changed), MCP requests and
// batches with `_meta`, the subscription routes and Stripe events signed or not — and the properties every answer
// keeps. Shared by gateway/serve/fuzz.test.ts (20,000 cases in `npm test`) and bench/fuzz.ts (the long run); no vitest here.
import assert from "node:assert/strict";
import { encodePaymentSignatureHeader } from "@x402/core/http";
import fc from "fast-check";
import { DISCOVERY_ROUTES, PAID_ROUTES, ROUTES, SUBSCRIPTION_ROUTES, type PaidRoute } from "../schemas/api.ts";
import { ERROR_CODES, type ErrorCode } from "../schemas/errors.ts";
import { buildTestData, testGateway } from "./_gateway.ts";
import { removeDir } from "./_s3.ts";
import { signedEvent, startStripe, subscriptionObject, type StripeStandIn } from "./_stripe.ts";
import { createUsdcLedger } from "../gateway/payment/dev-chain/ledger.ts";
import { createLocalFacilitator } from "../gateway/payment/dev-chain/facilitator.ts";
import { addressOf, ANVIL_KEYS, decodePaymentRequired, payerClient } from "./_x402.ts";

/**
 * The only 5xx a client can meet here, by design: subscriptions not configured, or a signed Stripe event that cannot
 * be applied now (Stripe's API does not give its subscription), answered 503 so that Stripe delivers it again
 * (docs/threat-model.md §6).
 */
export const DOCUMENTED_5XX: ReadonlySet<ErrorCode> = new Set(["subscriptions_unavailable", "stripe_unavailable"]);

/** Every route with its method and the names of its parameters (a route's own names reach past validation). */
const ALL_ROUTES: { path: string; method: string; params: string[] }[] = [
  ...[...ROUTES, ...SUBSCRIPTION_ROUTES].map((r) => ({ path: r.path, method: r.method, params: Object.keys(r.query.shape) })),
  ...DISCOVERY_ROUTES.map((r) => ({ path: r.path, method: r.method, params: [] })),
  { path: "/mcp", method: "POST", params: [] },
];
const PAID_PATHS = new Set<string>(PAID_ROUTES.map((r) => r.path));
const OTHER_METHODS = ["GET", "POST", "PUT", "DELETE", "OPTIONS", "PATCH", "PROPFIND", "X-CUSTOM"];
const HOSTILE = [
  "../../etc/passwd", "..%2F..%2Fcurrent.json", "AAPL/../../keys", "\u0000", "\r\nX-Injected: 1", "__proto__", "constructor",
  "prototype", "AAPL\u202e", "ＡＡＰＬ", "A".repeat(5000), "%00", "${jndi:ldap://x}", "<script>", "-1", "1e2", "0x10", "NaN", "",
  "cs_test_" + "a".repeat(300), "cs_../../x", "sub_x", "fds_" + "A".repeat(43),
];
const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom(...HOSTILE),
  fc.constantFrom("AAPL", "aapl", "BRK.B", "JNJ", "MSFT", "ZZZZ", "2023", "FY2023", "CY2023Q4", "annual", "quarterly", "2026-02-30", "2024-02-29", "10-K", "4", "cs_test_fuzz1", "ttm", "balance", "cash_flow", "all", "true"),
);
const paramName = fc.oneof(fc.constantFrom("ticker", "form", "limit", "period", "since", "statement", "as_of", "history", "session_id", "__proto__", "constructor", "ticker[]", "TICKER"), fc.string({ maxLength: 12 }));
/** Values for each parameter name, mostly ones that pass validation (so that payment, data and keys are reached). */
const PARAM_VALUES: Record<string, fc.Arbitrary<string>> = {
  ticker: fc.oneof({ weight: 6, arbitrary: fc.constantFrom("AAPL", "aapl", "JNJ", "WMT", "HD", "DIS", "UA", "TSM", "BRK-B", "brk.b", "MSFT", "ZZZZ") }, { weight: 1, arbitrary: text }),
  form: fc.oneof(fc.constantFrom("10-K", "10-Q", "8-K", "4", "10-k", "10-K/A", "DEF 14A"), text),
  limit: fc.oneof(fc.constantFrom("1", "2", "20", "100", "1000"), fc.constantFrom("0", "101", "1001", "10000", "-1", "1e2", "2.5", "abc"), text),
  period: fc.oneof(fc.constantFrom("annual", "quarterly", "interim", "ttm", "2023", "FY2023", "CY2023Q4", "CY2023"), fc.constantFrom("FY1800", "CY2023Q5", "x"), text),
  since: fc.oneof(fc.constantFrom("2024-01-01", "2026-01-01", "2000-01-01"), fc.constantFrom("2026-02-30", "2024-13-01", "yesterday"), text),
  statement: fc.oneof(fc.constantFrom("income", "balance", "cash_flow", "all"), fc.constantFrom("Balance", "cashflow", ""), text),
  as_of: fc.oneof(fc.constantFrom("2024-01-01", "2025-06-30", "1990-01-01"), fc.constantFrom("2026-02-30", "tomorrow"), text),
  history: fc.oneof(fc.constantFrom("true", "false"), fc.constantFrom("1", "yes", ""), text),
  session_id: fc.oneof(fc.constantFrom("cs_test_fuzz1", "cs_test_fuzz2"), fc.string({ maxLength: 20 }).map((x) => `cs_test_${x}`), text),
  // The answers across companies (issue 40).
  metric: fc.oneof(fc.constantFrom("revenue", "net_income", "free_cash_flow", "total_assets", "eps_diluted"), fc.constantFrom("ebitda", "Revenue", ""), text),
  min: fc.oneof(fc.constantFrom("0", "1e9", "-5.5", "2500000000"), fc.constantFrom("1e400", "abc", "1,000"), text),
  max: fc.oneof(fc.constantFrom("0", "1e12", "100"), fc.constantFrom("NaN", "Infinity"), text),
  sic: fc.oneof(fc.constantFrom("73", "737", "7372", "3571"), fc.constantFrom("7", "73721", "ab"), text),
  exchange: fc.oneof(fc.constantFrom("Nasdaq", "NYSE", "otc"), fc.constantFrom("N", "../etc"), text),
  order: fc.oneof(fc.constantFrom("asc", "desc"), fc.constantFrom("up", ""), text),
  offset: fc.oneof(fc.constantFrom("0", "2", "50", "9999999"), fc.constantFrom("-1", "1.5", "99999999"), text),
  code: fc.oneof(fc.constantFrom("P", "s", "A"), fc.constantFrom("PP", "1", ""), text),
  min_value: fc.oneof(fc.constantFrom("1000000", "0"), fc.constantFrom("lots", "-"), text),
  role: fc.oneof(fc.constantFrom("officer", "director", "ten_percent_owner"), fc.constantFrom("ceo", ""), text),
  item: fc.oneof(fc.constantFrom("2.02", "5.02", "9.01"), fc.constantFrom("2.2", "22.022"), text),
  // Segments (issue 43).
  axis: fc.oneof(fc.constantFrom("business", "product", "geography", "all"), fc.constantFrom("Business", "segment", ""), text),
};
const base64 = (value: string) => Buffer.from(value).toString("base64");
const hex = (bytes: number) => fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((b) => `0x${Buffer.from(b).toString("hex")}`);
const address = fc.oneof(hex(20), fc.constantFrom("0x0000000000000000000000000000000000000000", "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", "not an address"));
const amount = fc.oneof(fc.bigInt({ min: -1n, max: 10n ** 80n }).map(String), fc.constantFrom("10000", "20000", "1e400", "0x10", "", "NaN", "-0"));

/** Versions a payload may claim: only 2 is ours; 1 (x402 v1) and the rest are refused as payloads (402), never a 5xx. */
const CLAIMED_VERSIONS = [2, 2, 1, 3, "2", null, -1, 0];

/** An x402 v2 payment payload built from scratch: every field present, with hostile values. */
const madeUpPayment = fc
  .record({
    x402Version: fc.constantFrom(...CLAIMED_VERSIONS),
    accepted: fc.record({
      scheme: fc.constantFrom("exact", "upto", "", "EXACT"),
      network: fc.constantFrom("eip155:8453", "eip155:84532", "eip155:1", "solana:mainnet", ""),
      amount,
      asset: address,
      payTo: address,
      maxTimeoutSeconds: fc.oneof(fc.integer(), fc.constant(Number.MAX_SAFE_INTEGER)),
      extra: fc.oneof(fc.constant({ name: "USD Coin", version: "2" }), fc.jsonValue({ maxDepth: 2 })),
    }),
    payload: fc.record({
      signature: fc.oneof(hex(65), hex(64), hex(0), fc.string({ maxLength: 20 })),
      authorization: fc.record({ from: address, to: address, value: amount, validAfter: amount, validBefore: amount, nonce: fc.oneof(hex(32), hex(31), fc.string()) }),
    }),
    resource: fc.oneof(fc.constant({ url: "https://api.example.test/filings/latest" }), fc.jsonValue({ maxDepth: 2 })),
  })
  .map((payment) => base64(JSON.stringify(payment)));

/** What a mutation of a genuine payload changes: each invalidates it (its version, signature, or the route's requirements). */
const MUTATIONS: Record<string, (p: GenuinePayload) => void> = {
  value: (p) => void (p.payload.authorization.value = String(BigInt(p.payload.authorization.value) + 1n)),
  to: (p) => void (p.payload.authorization.to = "0x0000000000000000000000000000000000000001"),
  from: (p) => void (p.payload.authorization.from = "0x0000000000000000000000000000000000000002"),
  nonce: (p) => void (p.payload.authorization.nonce = flipLastHexDigit(p.payload.authorization.nonce)),
  validBefore: (p) => void (p.payload.authorization.validBefore = String(Number(p.payload.authorization.validBefore) + 1)),
  signature: (p) => void (p.payload.signature = flipLastHexDigit(p.payload.signature.slice(0, 40)) + p.payload.signature.slice(40)),
  network: (p) => void (p.accepted.network = "eip155:1"),
  amount: (p) => void (p.accepted.amount = "1"),
  payTo: (p) => void (p.accepted.payTo = "0x0000000000000000000000000000000000000003"),
  version: (p) => void (p.x402Version = 1),
};

interface GenuinePayload {
  x402Version: number;
  accepted: { network: string; amount: string; payTo: string };
  payload: { signature: string; authorization: { from: string; to: string; value: string; validBefore: string; nonce: string } };
}

function flipLastHexDigit(value: string): string {
  const last = value.at(-1)!;
  return value.slice(0, -1) + (last === "0" ? "1" : "0");
}

/** The gateways under attack and what the properties need to know about them. */
export interface FuzzWorld {
  /** Two gateways over one snapshot: without Stripe (its routes answer 503) and with the Stripe stand-in. */
  gateways: { plain: ReturnType<typeof testGateway>; billing: ReturnType<typeof testGateway> };
  /** A real operator key: the only way a random case may be served paid data. */
  key: string;
  /** Genuine signed PAYMENT-SIGNATURE payloads, never sent unchanged until `finalChecks`. */
  genuine: string[];
  stripe: StripeStandIn;
  /** Tickers whose documents were read. */
  documentsRead: string[];
  /** Answers by kind, for the bench's report. */
  tally: Record<string, number>;
  /** The 5xx answers by error code (each one documented, or a property failed). */
  fiveHundreds: Record<string, number>;
  close(): Promise<void>;
}

/** Builds the snapshot, starts both gateways and the Stripe stand-in, signs the genuine payments. */
export async function startFuzzWorld(): Promise<FuzzWorld> {
  const data = await buildTestData();
  const stripe = await startStripe();
  stripe.subscriptions.set("sub_fuzz", subscriptionObject("sub_fuzz", "cus_fuzz"));
  // One chain for both gateways, as replicas share one: a payment spent through one is spent for the other.
  const ledger = createUsdcLedger();
  ledger.fund(addressOf(ANVIL_KEYS.payer), 1_000_000_000n);
  const facilitator = createLocalFacilitator(ledger);
  const plain = testGateway(data.dataDir, { facilitator });
  const billing = testGateway(data.dataDir, { env: stripe.env, facilitator });
  const documentsRead: string[] = [];
  for (const gw of [plain, billing]) {
    const original = gw.snapshots.document.bind(gw.snapshots);
    gw.snapshots.document = (snapshot, ticker, kind) => {
      documentsRead.push(ticker);
      return original(snapshot, ticker, kind);
    };
  }
  const world: FuzzWorld = {
    gateways: { plain, billing },
    key: (await plain.keys.create("fuzz")).key,
    genuine: [],
    stripe,
    documentsRead,
    tally: {},
    fiveHundreds: {},
    async close() {
      plain.close();
      billing.close();
      await stripe.stop();
      [data.dataDir, data.mirror].forEach(removeDir);
    },
  };
  await signGenuine(world);
  return world;
}

/**
 * The paid routes whose genuine payments are tried, each with a question the fixtures answer with data (so it settles).
 * The market feeds reach back from today, where the fixtures hold nothing: their payments are tested in market.test.ts.
 */
const ANSWERED: [PaidRoute, string][] = PAID_ROUTES.filter((r) => r.feed !== "market_filings" && r.feed !== "market_insiders").map((route) => [
  route,
  route.feed ? new URLSearchParams(Object.entries(route.example).map(([k, v]) => [k, String(v)])).toString() : `ticker=${route.path === "/insiders" ? "JNJ" : "AAPL"}`,
]);

/** Two genuine payments per answered paid route, signed by the payer for the 402's own requirements (valid for 300 s). */
export async function signGenuine(world: FuzzWorld): Promise<void> {
  world.genuine = [];
  for (const [route, query] of ANSWERED) {
    const res = await world.gateways.plain.get(`${route.path}?${query}`);
    const required = decodePaymentRequired(res.headers.get("payment-required"));
    for (let i = 0; i < 2; i++) world.genuine.push(encodePaymentSignatureHeader(await payerClient(ANVIL_KEYS.payer).createPaymentPayload(required)));
  }
}

/** One hostile request, as data (fast-check shrinks it when a property fails). */
export interface FuzzCase {
  gateway: "plain" | "billing";
  method: string;
  path: string;
  query: [string, string][];
  headers: Record<string, string>;
  body: BodyPlan;
}

type BodyPlan =
  | { kind: "none" }
  | { kind: "text"; text: string }
  | { kind: "stripe"; event: { id: string; type: string; object: unknown }; signature: "genuine" | "none" | "other-secret" | "garbage" | "stale" };

/** The case arbitrary; `world` provides the real key and the genuine payments to mutate. */
export function fuzzCase(world: FuzzWorld): fc.Arbitrary<FuzzCase> {
  const realKey = fc.constantFrom(`Bearer ${world.key}`, `bearer   ${world.key}  `, world.key);
  const header = fc.oneof(
    text,
    fc.string({ maxLength: 200 }).map(base64),
    fc.constantFrom(...CLAIMED_VERSIONS).map((v) => base64(JSON.stringify({ x402Version: v, payload: { signature: "0x00" }, accepted: { scheme: "exact" } }))),
    fc.constant(base64('{"__proto__":{"polluted":true},"x402Version":2}')),
    fc.constant("x".repeat(8000)),
  );
  const mutated = fc.record({ at: fc.nat(), mutation: fc.constantFrom(...Object.keys(MUTATIONS)) }).map(({ at, mutation }) => {
    const payment = JSON.parse(Buffer.from(world.genuine[at % world.genuine.length]!, "base64").toString("utf8")) as GenuinePayload;
    MUTATIONS[mutation]!(payment);
    return base64(JSON.stringify(payment));
  });
  const paymentSignature = fc.oneof({ weight: 2, arbitrary: header }, { weight: 3, arbitrary: madeUpPayment }, { weight: 3, arbitrary: mutated });
  // Any JSON at all as `_meta["x402/payment"]`: the payment core validates it against the payload schema (a 402 tool
  // error when it is no v2 payload), never casts it.
  const v2 = (payment: unknown) => ({ ...(payment as object), x402Version: 2 });
  const metaValue = fc.jsonValue({ maxDepth: 3 });
  const mcpCall = fc
    .record({
      name: fc.constantFrom(...ROUTES.map((r) => r.tool), "nope", "__proto__"),
      args: fc.dictionary(paramName, fc.oneof(text, fc.integer(), fc.jsonValue({ maxDepth: 2 }))),
      meta: fc.option(fc.oneof(metaValue, madeUpPayment.map((p) => v2(JSON.parse(Buffer.from(p, "base64").toString()))), mutated.map((p) => JSON.parse(Buffer.from(p, "base64").toString())))),
      id: fc.oneof(fc.integer(), fc.string({ maxLength: 8 }), fc.constant(null)),
    })
    .map(({ name, args, meta, id }) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args, ...(meta === null ? {} : { _meta: { "x402/payment": meta } }) } }));
  const mcpOther = fc.oneof(
    fc.constant({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    fc.constant({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "fuzz", version: "0" } } }),
    fc.constant({ jsonrpc: "2.0", method: "notifications/initialized" }),
    fc.record({ jsonrpc: fc.constantFrom("2.0", "1.0", 2), id: fc.jsonValue({ maxDepth: 1 }), method: fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom("tools/call", "resources/list", "ping")), params: fc.jsonValue({ maxDepth: 2 }) }),
  );
  const mcpMessage = fc.oneof(mcpCall, mcpOther);
  const mcpBody = fc.oneof(
    { weight: 4, arbitrary: mcpMessage.map((m) => JSON.stringify(m)) },
    { weight: 2, arbitrary: fc.array(mcpMessage, { minLength: 0, maxLength: 5 }).map((batch) => JSON.stringify(batch)) },
    { weight: 1, arbitrary: fc.string({ maxLength: 100 }) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
  );
  const stripeObject = fc.oneof(
    fc.record({ id: fc.constantFrom("cs_test_fuzz1", "cs_test_fuzz2", "cs_bad id"), object: fc.constant("checkout.session"), mode: fc.constantFrom("subscription", "payment"), customer: fc.constantFrom("cus_fuzz", null, 7), subscription: fc.constantFrom("sub_fuzz", "sub_unknown", null) }),
    fc.constantFrom(subscriptionObject("sub_fuzz", "cus_fuzz"), subscriptionObject("sub_fuzz", "cus_fuzz", { status: "canceled" }), subscriptionObject("sub_unknown", "cus_x")),
    fc.record({ id: fc.constant("in_1"), object: fc.constant("invoice"), parent: fc.jsonValue({ maxDepth: 2 }), subscription: fc.constantFrom("sub_fuzz", "sub_unknown", null) }),
    fc.jsonValue({ maxDepth: 3 }),
  );
  const stripeBody = fc.record({
    event: fc.record({
      id: fc.oneof(fc.constantFrom("evt_fuzz1", "evt_fuzz2", "evt_../x"), fc.string({ maxLength: 10 }).map((s) => `evt_${s}`)),
      type: fc.constantFrom("checkout.session.completed", "customer.subscription.updated", "customer.subscription.deleted", "invoice.payment_failed", "charge.refunded", ""),
      object: stripeObject,
    }),
    signature: fc.constantFrom("genuine", "genuine", "none", "other-secret", "garbage", "stale"),
  });
  const hostilePath = fc.oneof(fc.constantFrom(...HOSTILE).map((h) => `/${h}`), fc.string({ maxLength: 30 }).map((x) => `/${encodeURIComponent(x)}`));
  const route = fc.oneof({ weight: 9, arbitrary: fc.constantFrom(...ALL_ROUTES) }, { weight: 1, arbitrary: hostilePath.map((path) => ({ path, method: "GET", params: [] as string[] })) });
  /** `arbitrary` in `present` tenths of the cases, null in the others. */
  const some = <T>(arbitrary: fc.Arbitrary<T>, present: number) =>
    fc.oneof({ weight: present, arbitrary }, { weight: 10 - present, arbitrary: fc.constant(null) });
  return route.chain((r) =>
    fc
      .record({
        gateway: fc.constantFrom("plain", "billing"),
        path: fc.constant(r.path),
        // The route's own method mostly, HEAD often, any other sometimes.
        method: fc.oneof({ weight: 6, arbitrary: fc.constant(r.method) }, { weight: 3, arbitrary: fc.constant("HEAD") }, { weight: 1, arbitrary: fc.constantFrom(...OTHER_METHODS) }),
        query: fc
          .tuple(
            fc.tuple(...r.params.map((name) => some(PARAM_VALUES[name] ?? text, name === "ticker" || name === "session_id" ? 9 : 3).map((v) => [name, v] as const))),
            fc.oneof({ weight: 6, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: fc.array(fc.tuple(paramName, text), { maxLength: 3 }) }),
          )
          .map(([own, extra]) => [...own.filter(([, v]) => v !== null), ...extra] as [string, string][]),
        authorization: some(fc.oneof({ weight: 2, arbitrary: realKey }, { weight: 3, arbitrary: fc.oneof(header, header.map((h) => `Bearer ${h}`), fc.constant(`Bearer fds_${"A".repeat(43)}`)) }), 3),
        apiKey: some(fc.oneof(header, fc.constant(world.key)), 1),
        payment: some(paymentSignature, 5),
        accept: fc.oneof({ weight: 4, arbitrary: fc.constant(r.path === "/mcp" ? "application/json, text/event-stream" : "application/json") }, { weight: 1, arbitrary: fc.constantFrom("text/html", "*/*", "text/event-stream", "", "application/json") }),
        contentType: fc.oneof({ weight: 4, arbitrary: fc.constant("application/json") }, { weight: 1, arbitrary: fc.constantFrom("text/plain", "application/x-www-form-urlencoded", "") }),
        mcpBody,
        stripeBody,
        other: fc.string({ maxLength: 200 }),
      })
      .map(({ mcpBody: mcp, stripeBody: stripe, other, authorization, apiKey, payment, accept, contentType, ...c }): FuzzCase => {
        const headers: Record<string, string> = { accept, "content-type": contentType };
        if (authorization !== null) headers.authorization = authorization;
        if (apiKey !== null) headers["x-api-key"] = apiKey;
        if (payment !== null) headers["payment-signature"] = payment;
        const hasBody = !["GET", "HEAD", "OPTIONS"].includes(c.method);
        const body: BodyPlan = !hasBody
          ? { kind: "none" }
          : c.path === "/mcp"
            ? { kind: "text", text: mcp }
            : c.path === "/webhooks/stripe"
              ? { kind: "stripe", ...stripe }
              : { kind: "text", text: other };
        return { ...c, headers, body };
      }),
  );
}

/** Sends one case and checks every property of its answer; throws (node:assert) on the first one broken. */
export async function runCase(world: FuzzWorld, c: FuzzCase): Promise<void> {
  const gw = world.gateways[c.gateway];
  const url = new URL(`http://gateway.test${c.path}`);
  for (const [name, value] of c.query) url.searchParams.append(name, value);
  const headers = new Headers();
  for (const [name, value] of Object.entries(c.headers)) {
    try {
      headers.set(name, value);
    } catch {
      // a value no HTTP client could send (a bare CR or LF); skip that header
    }
  }
  let body: string | undefined;
  if (c.body.kind === "text") body = c.body.text;
  if (c.body.kind === "stripe") {
    const secret = c.body.signature === "other-secret" ? "whsec_someoneelse" : undefined;
    const created = Math.floor(Date.now() / 1000) - (c.body.signature === "stale" ? 3600 : 0);
    const signed = signedEvent(c.body.event.id, c.body.event.type, c.body.event.object as Record<string, unknown>, created, secret);
    body = signed.body;
    if (c.body.signature === "garbage") headers.set("stripe-signature", "t=1,v1=00");
    else if (c.body.signature !== "none") headers.set("stripe-signature", signed.signature);
  }
  const res = await gw.app.fetch(new Request(url, { method: c.method, headers, ...(body === undefined ? {} : { body }) }));
  const bytes = Buffer.from(await res.arrayBuffer());
  const what = `${c.method} ${c.path} → ${res.status}`;
  const kind = c.path === "/mcp" && c.method === "POST" ? "mcp" : c.method === "HEAD" ? "head" : "http";
  world.tally[`${kind} ${res.status}`] = (world.tally[`${kind} ${res.status}`] ?? 0) + 1;

  if (kind === "head") {
    assert.equal(bytes.length, 0, `${what}: a HEAD answer has no body`);
    // The same request as a GET, without a payment (HEAD never pays): same status and content type.
    headers.delete("payment-signature");
    const get = await gw.app.fetch(new Request(url, { method: "GET", headers }));
    const getBytes = Buffer.from(await get.arrayBuffer());
    assert.equal(res.status, get.status, `${what}: HEAD and GET disagree (GET ${get.status})`);
    assert.equal(res.headers.get("content-type"), get.headers.get("content-type"), `${what}: content type differs from GET`);
    return checkAnswer(world, c, get, getBytes, `GET for ${what}`, false);
  }
  return checkAnswer(world, c, res, bytes, what, kind === "mcp");
}

function checkAnswer(world: FuzzWorld, c: FuzzCase, res: Response, bytes: Buffer, what: string, mcp: boolean): void {
  const status = res.status;
  const json = () => {
    try {
      return JSON.parse(bytes.toString("utf8")) as Record<string, unknown>;
    } catch {
      assert.fail(`${what}: the body is not JSON: ${bytes.toString("utf8").slice(0, 120)}`);
    }
  };
  if (mcp && !(status === 405 || status === 414)) return checkMcp(world, res, bytes, json, what, presentsKey(world, c));
  if (c.path === "/subscribe/success" && /^text\/html/.test(res.headers.get("content-type") ?? "")) {
    // The success page answers a browser with a page: the key (200), "confirming" (202) or "already shown" (410).
    assert.ok([200, 202, 410].includes(status), `${what}: the success page answered ${status}`);
    return assert.match(bytes.toString("utf8"), /^<!doctype html>/, `${what}: not the page`);
  }
  if (status >= 400) {
    assert.match(res.headers.get("content-type") ?? "", /^application\/json/, `${what}: errors are JSON`);
    const code = errorBodyCode(world, json(), what);
    assert.equal(status, ERROR_CODES[code].status, `${what}: ${code} answered with another status`);
    return;
  }
  if (/^application\/json/.test(res.headers.get("content-type") ?? "")) json();
  if (PAID_PATHS.has(c.path) && status === 200) {
    // Paid data only for the real key: no made-up or altered payment, no malformed key ever buys an answer.
    assert.ok(presentsKey(world, c), `${what}: paid data served without the key (payment ${c.headers["payment-signature"]?.slice(0, 60)})`);
    const answer = json() as { data?: unknown; meta?: unknown };
    assert.ok(Array.isArray(answer.data) && typeof answer.meta === "object", `${what}: not the envelope`);
  }
  if (status === 303) assert.match(res.headers.get("location") ?? "", /^https:\/\/checkout\.stripe\.com\//, `${what}: a redirect elsewhere than Stripe Checkout`);
}

/** Whether the case sends the real key (as a Bearer token or X-API-Key); malformed forms are refused anyway. */
function presentsKey(world: FuzzWorld, c: FuzzCase): boolean {
  return `${c.headers.authorization ?? ""} ${c.headers["x-api-key"] ?? ""}`.includes(world.key);
}

/**
 * The error body `{error: {code, message, hint}}`: a known code, a message and a hint; a 5xx code only if documented
 * (and counted). Its code.
 */
function errorBodyCode(world: FuzzWorld, body: unknown, what: string): ErrorCode {
  const error = (body as { error?: { code?: unknown; message?: unknown; hint?: unknown } } | null)?.error;
  assert.ok(error && typeof error.code === "string" && Object.hasOwn(ERROR_CODES, error.code), `${what}: not the error body: ${JSON.stringify(body)?.slice(0, 200)}`);
  assert.ok(typeof error.message === "string" && error.message.length > 0, `${what}: error without a message`);
  assert.ok(typeof error.hint === "string" && error.hint.length > 0, `${what}: error without a hint`);
  const code = error.code as ErrorCode;
  if (ERROR_CODES[code].status >= 500) {
    assert.ok(DOCUMENTED_5XX.has(code), `${what}: an undocumented 5xx (${code}): ${error.message}`);
    world.fiveHundreds[code] = (world.fiveHundreds[code] ?? 0) + 1;
  }
  return code;
}

/** JSON text, parsed; a failed assertion naming `what` otherwise. */
function parsed(text: string | undefined, what: string): unknown {
  try {
    return JSON.parse(text ?? "");
  } catch {
    assert.fail(`${what}: not JSON: ${String(text).slice(0, 120)}`);
  }
}

/**
 * An MCP answer: JSON-RPC 2.0 messages; every tool error carries the error body where docs/api.md ("MCP") says: a payment
 * refusal has the x402 PaymentRequired as structuredContent and, exactly, as content[0].text, then the body
 * (payment_required) in content[1].text; any other error has no structuredContent and the body in content[0].text.
 * A paid tool's data (an array, where the probe's is an object) only for the real key.
 */
function checkMcp(world: FuzzWorld, res: Response, bytes: Buffer, json: () => unknown, what: string, keyed: boolean): void {
  const status = res.status;
  if (status === 202) return assert.equal(bytes.length, 0, `${what}: a notification's 202 has no body`);
  assert.ok(status === 200 || (status >= 400 && status < 500), `${what}: MCP answered ${status}`);
  const answer = json();
  for (const message of Array.isArray(answer) ? answer : [answer]) {
    const m = message as { jsonrpc?: unknown; result?: unknown; error?: { code?: unknown; message?: unknown } };
    assert.equal(m.jsonrpc, "2.0", `${what}: not JSON-RPC 2.0: ${JSON.stringify(m).slice(0, 200)}`);
    if (status >= 400 || m.error !== undefined) {
      assert.ok(Number.isInteger(m.error?.code) && typeof m.error?.message === "string", `${what}: a JSON-RPC error without code and message: ${JSON.stringify(m).slice(0, 200)}`);
      continue;
    }
    const result = m.result as { isError?: boolean; structuredContent?: Record<string, unknown>; content?: { type: string; text?: string }[] } | undefined;
    assert.ok(result && typeof result === "object", `${what}: a JSON-RPC answer without a result`);
    // A paid answer is a document's rows, traced to its EDGAR source (meta.source_api); free tools' lists are not.
    const meta = result.structuredContent?.meta as { source_api?: unknown } | undefined;
    if (!result.isError && Array.isArray(result.structuredContent?.data) && meta?.source_api !== undefined) {
      assert.ok(keyed, `${what}: a paid tool answered without the key`);
    }
    if (result.isError) {
      const texts = (result.content ?? []).map((c) => (c.type === "text" ? c.text : undefined));
      const s = result.structuredContent;
      if (s === undefined) {
        assert.equal(texts.length, 1, `${what}: a tool error is its error body alone: ${JSON.stringify(result).slice(0, 200)}`);
        const code = errorBodyCode(world, parsed(texts[0], `${what} content[0].text`), what);
        assert.notEqual(code, "payment_required", `${what}: a payment refusal without its PaymentRequired`);
        continue;
      }
      const resource = s.resource as { url?: unknown } | undefined;
      assert.ok(s.x402Version === 2 && Array.isArray(s.accepts) && s.accepts.length > 0 && typeof resource?.url === "string", `${what}: a tool error's structuredContent is not a PaymentRequired: ${JSON.stringify(s).slice(0, 200)}`);
      assert.equal(texts.length, 2, `${what}: a payment refusal is the PaymentRequired, then the error body`);
      assert.equal(texts[0], JSON.stringify(s), `${what}: content[0].text is not the PaymentRequired's JSON`);
      assert.equal(errorBodyCode(world, parsed(texts[1], `${what} content[1].text`), what), "payment_required", `${what}: a PaymentRequired with another error code`);
    }
  }
}

/**
 * After the cases: no document read for a ticker the snapshot does not cover, no prototype polluted, both gateways
 * alive, and every genuine payment (sent only altered until now) pays exactly once — so every altered one was
 * refused for its alteration, not for a spent nonce.
 */
export async function finalChecks(world: FuzzWorld): Promise<void> {
  const { manifest } = world.gateways.plain.snapshots.held!;
  for (const ticker of new Set(world.documentsRead)) assert.equal(manifest.tickers[ticker]?.covered, true, `a document of ${ticker} was read`);
  assert.equal(({} as Record<string, unknown>).polluted, undefined, "Object.prototype was polluted");
  for (const gw of Object.values(world.gateways)) assert.equal((await gw.get("/health")).status, 200, "a gateway stopped answering");
  for (const [i, signature] of world.genuine.entries()) {
    const [route, query] = ANSWERED[Math.floor(i / 2)]!;
    const path = `${route.path}?${query}`; // answers with data: settled
    const paid = await world.gateways.plain.get(path, { headers: { "payment-signature": signature } });
    assert.equal(paid.status, 200, `genuine payment ${i} for ${route.path} did not pay (${paid.status})`);
    assert.ok(paid.headers.get("payment-response"), `genuine payment ${i} was not settled`);
    const replay = await world.gateways.billing.get(path, { headers: { "payment-signature": signature } });
    assert.equal(replay.status, 402, `genuine payment ${i} paid twice (the other replica, one chain)`);
  }
}
