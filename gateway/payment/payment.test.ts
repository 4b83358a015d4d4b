import { mkdirSync, renameSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentPayload } from "@x402/core/types";
import { extractDiscoveryInfo, validateDiscoveryExtension } from "@x402/extensions/bazaar";
import { generatePaymentId } from "@x402/extensions/payment-identifier";
import { wrapFetchWithPayment } from "@x402/fetch";
import { serve } from "h3";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { PAID_ROUTES, SERVICE } from "../../schemas/api.ts";
import { describeEdgar } from "../../test/_edgar.ts";
import { buildTestData, testGateway } from "../../test/_gateway.ts";
import { removeDir } from "../../test/_s3.ts";
import { addressOf, ANVIL_KEYS, counting, decodePaymentRequired, decodePaymentResponse, malformedPayments, payerClient, payingFetch, quietConsole, startLoopbackFacilitator, type LoopbackFacilitator, withFailingSettlement } from "../../test/_x402.ts";
import { eip3009ABI } from "@x402/evm";
import type { Hex } from "viem";
import { BASE_USDC, createUsdcLedger } from "./dev-chain/ledger.ts";
import { createLocalFacilitator } from "./dev-chain/facilitator.ts";
import { DEV_PAY_TO } from "../serve/server.ts";

const PAYER = addressOf(ANVIL_KEYS.payer);

/** One gateway served on a loopback port, paid through one facilitator over one ledger. */
async function paidGateway(dataDir: string, mode: "loopback" | "in-process") {
  const ledger = withFailingSettlement(createUsdcLedger());
  ledger.fund(PAYER, 1_000_000n);
  let loopback: LoopbackFacilitator | null = null;
  let facilitator: ReturnType<typeof counting> | LoopbackFacilitator["client"];
  if (mode === "loopback") {
    // The stock HTTPFacilitatorClient, as production's configuration builds it: the gateway speaks to it its own way.
    loopback = await startLoopbackFacilitator(ledger, { slowMs: 5_000, timeoutMs: 10_000 });
    facilitator = loopback.client;
  } else {
    facilitator = counting(createLocalFacilitator(ledger));
  }
  const gw = testGateway(dataDir, { facilitator });
  const server = serve(gw.app, { port: 0, hostname: "127.0.0.1", silent: true });
  await server.ready();
  const base = server.url!.replace(/\/$/, "");
  return {
    ledger,
    loopback,
    /** The counting facilitator in-process (null over the loopback wire). */
    counted: "verifies" in facilitator ? facilitator : null,
    base,
    gw,
    async close() {
      gw.close();
      await server.close(true);
      await loopback?.close();
    },
  };
}

/** Signs the requirements a 402 carries, optionally altered first, and returns the PAYMENT-SIGNATURE header. */
async function sign(res: Response, key = ANVIL_KEYS.payer, alter: (r: ReturnType<typeof decodePaymentRequired>) => void = () => {}) {
  const required = decodePaymentRequired(res.headers.get("payment-required"));
  alter(required);
  return encodePaymentSignatureHeader(await payerClient(key).createPaymentPayload(required));
}

describeEdgar("x402 payments through the gateway", () => {
  let data: { dataDir: string; mirror: string };
  beforeAll(async () => {
    data = await buildTestData();
  });
  afterAll(() => data && [data.dataDir, data.mirror].forEach(removeDir));

  describe.each(["loopback", "in-process"] as const)("facilitator %s", (mode) => {
    let t: Awaited<ReturnType<typeof paidGateway>>;
    let ledger: Awaited<ReturnType<typeof paidGateway>>["ledger"];
    beforeAll(async () => {
      t = await paidGateway(data.dataDir, mode);
      ledger = t.ledger;
    });
    afterAll(() => t?.close());

    it.each([
      ["/filings/latest?ticker=AAPL&limit=5", 10_000n],
      ["/earnings/summary?ticker=WMT&period=annual", 20_000n],
      ["/insiders?ticker=JNJ", 10_000n],
    ])("pays %s with a real client and moves exactly the price", async (path, price) => {
      const before = [ledger.balanceOf(PAYER), ledger.balanceOf(DEV_PAY_TO)];
      const res = await payingFetch(ANVIL_KEYS.payer)(`${t.base}${path}`);
      expect(res.status).toBe(200);
      const receipt = decodePaymentResponse(res.headers.get("payment-response"));
      expect(receipt).toMatchObject({ success: true, network: "eip155:8453", payer: PAYER });
      expect(res.headers.get("access-control-expose-headers")).toMatch(/PAYMENT-RESPONSE/); // a browser client may read the receipt
      expect((await res.json()).data.length).toBeGreaterThan(0);
      expect(ledger.balanceOf(PAYER)).toBe(before[0]! - price);
      expect(ledger.balanceOf(DEV_PAY_TO)).toBe(before[1]! + price);
    });

    it("the 402 carries the spec's requirements for each route", async () => {
      for (const [path, amount] of [["/filings/latest", "10000"], ["/earnings/summary", "20000"], ["/insiders", "10000"], ["/financials", "30000"]] as const) {
        const res = await fetch(`${t.base}${path}?ticker=AAPL`);
        expect(res.status).toBe(402);
        expect(decodePaymentRequired(res.headers.get("payment-required"))).toMatchObject({
          x402Version: 2,
          resource: { url: `https://api.example.test${path}` },
          accepts: [
            {
              scheme: "exact",
              network: "eip155:8453",
              amount,
              asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
              payTo: DEV_PAY_TO,
              maxTimeoutSeconds: 300,
              extra: { name: "USD Coin", version: "2" },
            },
          ],
        });
      }
    });

    it("a replayed payment is refused and charged once", async () => {
      const first = await fetch(`${t.base}/filings/latest?ticker=HD`);
      const signature = await sign(first);
      const paid = await fetch(`${t.base}/filings/latest?ticker=HD`, { headers: { "payment-signature": signature } });
      expect(paid.status).toBe(200);
      const balance = ledger.balanceOf(PAYER);
      const replay = await fetch(`${t.base}/filings/latest?ticker=HD`, { headers: { "payment-signature": signature } });
      expect(replay.status).toBe(402);
      expect((await replay.json()).error.message).toMatch(/nonce/);
      expect(ledger.balanceOf(PAYER)).toBe(balance);
    });

    it("under-payment, a wrong recipient and an expired authorization are refused with nothing charged", async () => {
      const balance = ledger.balanceOf(PAYER);
      const cheap = await sign(await fetch(`${t.base}/filings/latest?ticker=AAPL`)); // 10000 offered on a 20000 route
      const under = await fetch(`${t.base}/earnings/summary?ticker=AAPL`, { headers: { "payment-signature": cheap } });
      expect(under.status).toBe(402);
      const elsewhere = await sign(await fetch(`${t.base}/insiders?ticker=JNJ`), ANVIL_KEYS.payer, (r) => {
        r.accepts[0]!.payTo = addressOf(ANVIL_KEYS.stranger);
      });
      expect((await fetch(`${t.base}/insiders?ticker=JNJ`, { headers: { "payment-signature": elsewhere } })).status).toBe(402);
      vi.useFakeTimers({ toFake: ["Date"], now: Date.now() - 3_600_000 });
      const stale = await sign(await fetch(`${t.base}/insiders?ticker=JNJ`));
      vi.useRealTimers();
      const expired = await fetch(`${t.base}/insiders?ticker=JNJ`, { headers: { "payment-signature": stale } });
      expect(expired.status).toBe(402);
      expect((await expired.json()).error.message).toMatch(/valid_before/);
      expect(ledger.balanceOf(PAYER)).toBe(balance);
    });

    it("an unfunded payer is refused", async () => {
      const res = await payingFetch(ANVIL_KEYS.secondPayer)(`${t.base}/insiders?ticker=JNJ`);
      expect(res.status).toBe(402);
      expect((await res.json()).error.message).toMatch(/insufficient/);
    });

    it("a failed settlement leaks no data and charges nothing", async () => {
      const balance = ledger.balanceOf(PAYER);
      ledger.failNextSettlement();
      const res = await payingFetch(ANVIL_KEYS.payer)(`${t.base}/earnings/summary?ticker=DIS`);
      expect(res.status).toBe(402);
      const text = await res.text();
      expect(text).not.toContain("fiscal_year");
      expect(JSON.parse(text).error.message).toMatch(/could not be settled/);
      expect(decodePaymentResponse(res.headers.get("payment-response")).success).toBe(false);
      expect(ledger.balanceOf(PAYER)).toBe(balance);
    });

    it("an empty answer is served and not charged", async () => {
      const balance = ledger.balanceOf(PAYER);
      const res = await payingFetch(ANVIL_KEYS.payer)(`${t.base}/insiders?ticker=AAPL`);
      expect(res.status).toBe(200);
      expect((await res.json()).data).toEqual([]);
      expect(res.headers.get("payment-response")).toBeNull();
      expect(ledger.balanceOf(PAYER)).toBe(balance);
    });
  });

  describe("x402 over HTTP, hardened (issue 15)", () => {
    let t: Awaited<ReturnType<typeof paidGateway>>;
    beforeAll(async () => {
      t = await paidGateway(data.dataDir, "in-process");
    });
    afterAll(() => t?.close());

    it("every 402 names the service, offers payment-identifier and describes the route in Bazaar's HTTP form", async () => {
      for (const { path, example } of PAID_ROUTES) {
        const query = new URLSearchParams(Object.entries(example).map(([k, v]) => [k, String(v)]));
        const required = decodePaymentRequired((await fetch(`${t.base}${path}?${query}`)).headers.get("payment-required"));
        expect(required.resource).toMatchObject({ url: `https://api.example.test${path}`, serviceName: SERVICE.name, tags: [...SERVICE.tags] });
        expect(required.extensions?.["payment-identifier"]).toMatchObject({ info: { required: false } });
        expect(validateDiscoveryExtension(required.extensions!.bazaar as Parameters<typeof validateDiscoveryExtension>[0])).toMatchObject({ valid: true });
        const payload = await payerClient(ANVIL_KEYS.payer).createPaymentPayload(required);
        expect(extractDiscoveryInfo(payload, required.accepts[0]!)).toMatchObject({ resourceUrl: `https://api.example.test${path}`, method: "GET", serviceName: SERVICE.name });
      }
    });

    it("malformed PAYMENT-SIGNATURE headers are 402 naming the fault: never a 5xx, nothing on stderr, no facilitator call", async () => {
      const required = decodePaymentRequired((await fetch(`${t.base}/filings/latest?ticker=WMT`)).headers.get("payment-required"));
      const valid = (await payerClient(ANVIL_KEYS.payer).createPaymentPayload(required)) as PaymentPayload;
      const base64 = (text: string) => Buffer.from(text).toString("base64");
      const headers = [
        ...malformedPayments(valid).map(({ name, value }) => ({ name, header: base64(JSON.stringify(value)) })),
        { name: "not base64", header: "%%% not base64 %%%" },
        { name: "base64 of text", header: base64("not json at all") },
        { name: "base64 of null", header: base64("null") },
      ];
      const balance = t.ledger.balanceOf(PAYER);
      const quiet = quietConsole();
      try {
        for (const { name, header } of headers) {
          const res = await fetch(`${t.base}/filings/latest?ticker=WMT`, { headers: { "payment-signature": header } });
          expect(res.status, name).toBe(402);
          expect((await res.json()).error.code, name).toBe("payment_required");
          expect(decodePaymentRequired(res.headers.get("payment-required")).error, name).toMatch(/^invalid_(payload|payment_identifier)/);
        }
      } finally {
        expect(quiet.restore()).toEqual([]);
      }
      expect(t.ledger.balanceOf(PAYER)).toBe(balance);
      expect(t.gw.logs.filter((l) => l.level === "error")).toEqual([]);
    });

    it("an authorization valid past the offer's maxTimeoutSeconds (validBefore in the year 3000) is refused before the facilitator: nothing settled, its nonce unspent", async () => {
      const url = `${t.base}/insiders?ticker=JNJ`;
      const required = decodePaymentRequired((await fetch(url)).headers.get("payment-required"));
      const offered = required.accepts[0]!;
      expect(offered.maxTimeoutSeconds).toBe(300);
      // The real client signs validBefore = now + maxTimeoutSeconds: asked for a window to the year 3000, it signs one,
      // and the payload then names the very requirements offered (`accepted` is not part of what is signed).
      const year3000 = Math.floor(Date.UTC(3000, 0, 1) / 1000) - Math.floor(Date.now() / 1000);
      const long = await payerClient(ANVIL_KEYS.payer).createPaymentPayload({ ...required, accepts: [{ ...offered, maxTimeoutSeconds: year3000 }] });
      const payload = { ...long, accepted: offered };
      const authorization = payload.payload.authorization as { validBefore: string; nonce: Hex };
      expect(Number(authorization.validBefore)).toBeGreaterThanOrEqual(Date.UTC(3000, 0, 1) / 1000 - 5);
      const [balance, verifies, settles] = [t.ledger.balanceOf(PAYER), t.counted!.verifies, t.counted!.settles];
      const res = await fetch(url, { headers: { "payment-signature": encodePaymentSignatureHeader(payload) } });
      expect(res.status).toBe(402);
      expect((await res.json()).error).toMatchObject({ code: "payment_required", message: expect.stringMatching(/maxTimeoutSeconds allows 300/) });
      expect(decodePaymentRequired(res.headers.get("payment-required")).error).toMatch(/^invalid_exact_evm_payload_authorization_valid_before: /);
      expect([t.counted!.verifies - verifies, t.counted!.settles - settles]).toEqual([0, 0]);
      expect(t.ledger.balanceOf(PAYER)).toBe(balance);
      const used = { address: BASE_USDC, abi: eip3009ABI, functionName: "authorizationState", args: [PAYER, authorization.nonce] };
      expect(await t.ledger.readContract(used)).toBe(false);
      // A window as the offer asks still pays.
      const normal = await fetch(url, { headers: { "payment-signature": encodePaymentSignatureHeader(await payerClient(ANVIL_KEYS.payer).createPaymentPayload(required)) } });
      expect(normal.status).toBe(200);
      expect(decodePaymentResponse(normal.headers.get("payment-response")).success).toBe(true);
      expect(t.ledger.balanceOf(PAYER)).toBe(balance - 10_000n);
    });

    it("the same signed payload 20 times pipelined on one socket: one answer with data, one verification, one settlement", async () => {
      const required = decodePaymentRequired((await fetch(`${t.base}/insiders?ticker=JNJ`)).headers.get("payment-required"));
      const signature = encodePaymentSignatureHeader(await payerClient(ANVIL_KEYS.payer).createPaymentPayload(required));
      const [balance, verifies, settles] = [t.ledger.balanceOf(PAYER), t.counted!.verifies, t.counted!.settles];
      const answers = await pipelined(t.base, "/insiders?ticker=JNJ", { "payment-signature": signature }, 20);
      expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
      const refused = answers.filter((a) => a.status === 402);
      expect(refused).toHaveLength(19);
      // Every copy is refused for being that very authorization, never judged again: held while in flight, or replayed
      // after (a replay is verified, so it counts); without the hold all twenty are verified and settled at once.
      const reasons = refused.map((a) => decodePaymentRequired(a.headers.get("payment-required")).error ?? "");
      for (const reason of reasons) expect(reason).toMatch(/^(payment_in_flight|invalid_exact_evm_nonce_already_used)\b/);
      const replays = reasons.filter((r) => r.startsWith("invalid_exact_evm_nonce_already_used")).length;
      expect([t.counted!.verifies - verifies, t.counted!.settles - settles]).toEqual([1 + replays, 1]);
      expect(replays).toBeLessThan(19); // the copies did arrive while the first was in flight
      expect(t.ledger.balanceOf(PAYER)).toBe(balance - 10_000n);
    });

    it("@x402/fetch with a payment identifier: the answer lost is fetched again, same bytes and receipt, charged once", async () => {
      const id = generatePaymentId();
      const payloads: PaymentPayload[] = [];
      const payer = payerClient(ANVIL_KEYS.payer, id).onAfterPaymentCreation(async ({ paymentPayload }) => void payloads.push(paymentPayload));
      const pay = wrapFetchWithPayment(fetch, payer);
      const url = `${t.base}/earnings/summary?ticker=HD&period=annual`;
      const balance = t.ledger.balanceOf(PAYER);
      const first = await pay(url);
      expect(first.status).toBe(200);
      const [body, receipt] = [await first.text(), first.headers.get("payment-response")];
      expect(decodePaymentResponse(receipt)).toMatchObject({ success: true, payer: PAYER });
      // The client lost the answer: @x402/fetch asks again and signs anew with the same identifier...
      const again = await pay(url);
      // ...or the very PAYMENT-SIGNATURE is sent again.
      const resent = await fetch(url, { headers: { "payment-signature": encodePaymentSignatureHeader(payloads[0]!) } });
      for (const retry of [again, resent]) {
        expect(retry.status).toBe(200);
        expect(await retry.text()).toBe(body);
        expect(retry.headers.get("payment-response")).toBe(receipt);
      }
      expect(payloads).toHaveLength(2);
      expect(t.ledger.balanceOf(PAYER)).toBe(balance - 20_000n);
      const elsewhere = await pay(`${t.base}/earnings/summary?ticker=HD&period=quarterly`);
      expect(elsewhere.status).toBe(409);
      expect((await elsewhere.json()).error.code).toBe("idempotency_conflict");
      expect(t.ledger.balanceOf(PAYER)).toBe(balance - 20_000n);
    });

    it("20 concurrent retries with one identifier and one payload: one settlement, twenty identical answers", async () => {
      const id = generatePaymentId();
      const required = decodePaymentRequired((await fetch(`${t.base}/filings/latest?ticker=DIS&limit=2`)).headers.get("payment-required"));
      const signature = encodePaymentSignatureHeader(await payerClient(ANVIL_KEYS.payer, id).createPaymentPayload(required));
      const balance = t.ledger.balanceOf(PAYER);
      const answers = await Promise.all(
        Array.from({ length: 20 }, async () => {
          const res = await fetch(`${t.base}/filings/latest?ticker=DIS&limit=2`, { headers: { "payment-signature": signature } });
          return `${res.status} ${res.headers.get("payment-response")} ${await res.text()}`;
        }),
      );
      expect(new Set(answers).size).toBe(1);
      expect(answers[0]).toMatch(/^200 /);
      expect(t.ledger.balanceOf(PAYER)).toBe(balance - 10_000n);
    });

    it("the store failing: a key that cannot be checked is 503; a verified payment whose document cannot be read is released", async () => {
      const { key, hash } = await t.gw.keys.create("unreadable");
      const record = join(data.dataDir, "keys", `${hash}.json`);
      rmSync(record);
      mkdirSync(record); // reading the key's record fails (EISDIR)
      const keyed = await fetch(`${t.base}/filings/latest?ticker=AAPL`, { headers: { authorization: `Bearer ${key}` } });
      expect([keyed.status, (await keyed.json()).error.code]).toEqual([503, "storage_unavailable"]);
      rmSync(record, { recursive: true });

      const doc = join(data.dataDir, "snapshots", t.gw.snapshots.held!.pointer.build_id, "tickers", "UA", "insiders.json");
      renameSync(doc, `${doc}.away`);
      try {
        const balance = t.ledger.balanceOf(PAYER);
        const res = await payingFetch(ANVIL_KEYS.payer)(`${t.base}/insiders?ticker=UA`);
        expect([res.status, (await res.json()).error.code]).toEqual([503, "storage_unavailable"]);
        expect(res.headers.get("payment-response")).toBeNull();
        expect(t.ledger.balanceOf(PAYER)).toBe(balance);
      } finally {
        renameSync(`${doc}.away`, doc);
      }
    });
  });

  describe("facilitator outages", () => {
    let t: Awaited<ReturnType<typeof paidGateway>>;
    beforeAll(async () => {
      t = await paidGateway(data.dataDir, "loopback");
    });
    afterAll(() => t?.close());

    it("down → 503 facilitator_unavailable (not 402), then recovers by itself", async () => {
      const payFetch = payingFetch(ANVIL_KEYS.payer);
      expect((await payFetch(`${t.base}/filings/latest?ticker=AAPL`)).status).toBe(200);
      t.loopback!.setMode("down");
      const signature = await sign(await fetch(`${t.base}/filings/latest?ticker=AAPL`));
      const down = await fetch(`${t.base}/filings/latest?ticker=AAPL`, { headers: { "payment-signature": signature } });
      expect(down.status).toBe(503);
      expect((await down.json()).error.code).toBe("facilitator_unavailable");
      t.loopback!.setMode("ok");
      expect((await payFetch(`${t.base}/filings/latest?ticker=AAPL`)).status).toBe(200);
    });

    it("a 400 without a verdict refuses the payment (402 with the reason): the facilitator judged it, it is not down", async () => {
      const signature = await sign(await fetch(`${t.base}/filings/latest?ticker=HD`));
      t.loopback!.setMode("reject");
      const res = await fetch(`${t.base}/filings/latest?ticker=HD`, { headers: { "payment-signature": signature } });
      t.loopback!.setMode("ok");
      expect(res.status).toBe(402);
      expect(decodePaymentRequired(res.headers.get("payment-required")).error).toMatch(/^facilitator_rejected_payment/);
    });

    it("a facilitator's EXTENSION-RESPONSES header reaches our JSON log as one line per call, never the console", async () => {
      t.loopback!.setExtensionResponses({ bazaar: { status: "rejected", rejectedReason: "not_indexable", secret: "x" } });
      const quiet = quietConsole();
      let res: Response;
      try {
        res = await payingFetch(ANVIL_KEYS.payer)(`${t.base}/filings/latest?ticker=DIS&limit=1`);
      } finally {
        t.loopback!.setExtensionResponses(null);
        expect(quiet.restore()).toEqual([]); // @x402/core's own client printed "[x402] extension responses: …" here
      }
      expect(res.status).toBe(200);
      const lines = t.gw.logs.filter((l) => l.event === "facilitator_extension_responses");
      expect(lines.map((l) => l.fields)).toEqual(
        ["verify", "settle"].map((operation) => ({ operation, responses: { bazaar: { status: "rejected", rejectedReason: "not_indexable" } } })),
      );
    });

    it("slow → 503 within the gateway's deadline (1.5 s here)", async () => {
      const signature = await sign(await fetch(`${t.base}/filings/latest?ticker=WMT`));
      t.loopback!.setMode("slow");
      const started = performance.now();
      const slow = await fetch(`${t.base}/filings/latest?ticker=WMT`, { headers: { "payment-signature": signature } });
      const took = performance.now() - started;
      t.loopback!.setMode("ok");
      expect(slow.status).toBe(503);
      expect((await slow.json()).error.code).toBe("facilitator_unavailable");
      expect(took).toBeLessThan(4_000);
    });
  });
});

/** Sends the same GET `times` times down one socket without waiting (HTTP/1.1 pipelining); the answers' heads in order. */
async function pipelined(base: string, path: string, headers: Record<string, string>, times: number): Promise<{ status: number; headers: Headers }[]> {
  const { hostname, port } = new URL(base);
  const socket = connect(Number(port), hostname);
  const head = `GET ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join("")}\r\n`;
  socket.write(head.repeat(times));
  const answers: { status: number; headers: Headers }[] = [];
  let buffer = Buffer.alloc(0);
  for await (const chunk of socket) {
    buffer = Buffer.concat([buffer, chunk as Buffer]);
    for (;;) {
      const end = buffer.indexOf("\r\n\r\n");
      if (end < 0) break;
      const lines = buffer.subarray(0, end).toString("latin1");
      const length = /\r\ncontent-length: *(\d+)/i.exec(lines)?.[1];
      let next: number;
      if (length !== undefined) next = end + 4 + Number(length);
      else {
        const last = buffer.indexOf("\r\n0\r\n\r\n", end); // chunked: up to the last chunk
        next = last < 0 ? Infinity : last + 7;
      }
      if (buffer.length < next) break;
      const [statusLine, ...fields] = lines.split("\r\n");
      const head = new Headers(fields.map((f) => [f.slice(0, f.indexOf(":")), f.slice(f.indexOf(":") + 1).trim()] as [string, string]));
      answers.push({ status: Number(statusLine!.split(" ")[1]), headers: head });
      buffer = buffer.subarray(next);
    }
    if (answers.length === times) break;
  }
  socket.destroy();
  return answers;
}
