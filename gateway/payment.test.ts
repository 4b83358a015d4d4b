import type { FacilitatorClient } from "@x402/core/server";
import { encodePaymentSignatureHeader } from "@x402/core/http";
import { serve } from "h3";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { describeEdgar } from "../test/_edgar.ts";
import { buildTestData, testGateway } from "../test/_gateway.ts";
import { removeDir } from "../test/_s3.ts";
import { addressOf, ANVIL_KEYS, decodePaymentRequired, decodePaymentResponse, payerClient, payingFetch, startLoopbackFacilitator, type LoopbackFacilitator } from "../test/_x402.ts";
import { createUsdcLedger, type UsdcLedger } from "./payments/ledger.ts";
import { createLocalFacilitator } from "./payments/local-facilitator.ts";
import { DEV_PAY_TO } from "./server.ts";

const PAYER = addressOf(ANVIL_KEYS.payer);

/** One gateway served on a loopback port, paid through one facilitator over one ledger. */
async function paidGateway(dataDir: string, mode: "loopback" | "in-process") {
  const ledger = createUsdcLedger();
  ledger.fund(PAYER, 1_000_000n);
  let loopback: LoopbackFacilitator | null = null;
  let facilitator: FacilitatorClient;
  if (mode === "loopback") {
    loopback = await startLoopbackFacilitator(ledger, { slowMs: 5_000, timeoutMs: 10_000 });
    facilitator = loopback.client;
  } else {
    facilitator = createLocalFacilitator(ledger);
  }
  const gw = testGateway(dataDir, { facilitator });
  const server = serve(gw.app, { port: 0, hostname: "127.0.0.1", silent: true });
  await server.ready();
  const base = server.url!.replace(/\/$/, "");
  return {
    ledger,
    loopback,
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
    let ledger: UsdcLedger;
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
