// Idempotent retries across replicas (issue 17): two gateways over one store, each sent a re-signed retry with the
// same payment identifier at once, charge it once; and what was kept for an identifier is pruned once expired,
// a window of the store at a time.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FacilitatorResponseError, type FacilitatorClient } from "@x402/core/server";
import { encodePaymentSignatureHeader } from "@x402/core/http";
import { generatePaymentId } from "@x402/extensions/payment-identifier";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { KeptAnswer } from "../../schemas/payment.ts";
import { describeEdgar } from "../../test/_edgar.ts";
import { buildTestData, testGateway } from "../../test/_gateway.ts";
import { memoryLogger } from "../../test/_logger.ts";
import { removeDir } from "../../test/_s3.ts";
import { addressOf, ANVIL_KEYS, decodePaymentRequired, decodePaymentResponse, payerClient } from "../../test/_x402.ts";
import { openStorage } from "../../storage/open.ts";
import { createLocalFacilitator } from "./dev-chain/facilitator.ts";
import { createUsdcLedger } from "./dev-chain/ledger.ts";
import { IDEMPOTENCY_WINDOW_MS, IdempotentAnswers } from "./idempotency.ts";

const PAYER = addressOf(ANVIL_KEYS.payer);

describeEdgar("one payment identifier at two replicas over one store", () => {
  let data: { dataDir: string; mirror: string };
  let replicas: ReturnType<typeof testGateway>[];
  const ledger = createUsdcLedger();
  ledger.fund(PAYER, 10_000_000n);
  let settles = 0;
  /** When set, the next settlement times out at the facilitator after landing on chain. */
  let settleTimesOut = false;
  beforeAll(async () => {
    data = await buildTestData();
    const inner = createLocalFacilitator(ledger);
    const facilitator: FacilitatorClient = {
      ...inner,
      settle: async (...a) => {
        settles++;
        const settled = await inner.settle(...a);
        if (!settleTimesOut) return settled;
        settleTimesOut = false;
        throw new FacilitatorResponseError("the facilitator did not answer in time");
      },
    };
    replicas = [0, 1].map(() => testGateway(data.dataDir, { facilitator }));
  });
  afterAll(() => {
    for (const gw of replicas ?? []) gw.close();
    if (data) [data.dataDir, data.mirror].forEach(removeDir);
  });

  it("10 identifiers, each re-signed and sent to both replicas at once: each settled once; the other copy gets its answer", async () => {
    const path = "/filings/latest?ticker=HD&limit=1";
    const required = decodePaymentRequired((await replicas[0]!.get(path)).headers.get("payment-required"));
    const [balance, settled] = [ledger.balanceOf(PAYER), settles];
    for (let n = 0; n < 10; n++) {
      const id = generatePaymentId();
      // Two authorizations naming one identifier: a client that lost its answer and signed its retry anew.
      const signatures = await Promise.all([0, 1].map(async () => encodePaymentSignatureHeader(await payerClient(ANVIL_KEYS.payer, id).createPaymentPayload(required))));
      const answers = await Promise.all(signatures.map((signature, i) => replicas[i]!.get(path, { headers: { "payment-signature": signature } })));
      const paid = answers.filter((a) => a.status === 200);
      expect(paid.length).toBeGreaterThanOrEqual(1);
      for (const other of answers.filter((a) => a.status !== 200)) {
        // Still being paid at the other replica: refused, to be repeated (x402 payment-identifier).
        expect(other.status).toBe(402);
        expect(decodePaymentRequired(other.headers.get("payment-required")).error).toMatch(/^payment_in_flight: another request holds this payment identifier/);
      }
      const receipt = decodePaymentResponse(paid[0]!.headers.get("payment-response"));
      // Repeated at each replica: the kept answer and the first payment's receipt, said to be served again.
      for (const [i, signature] of signatures.entries()) {
        const again = await replicas[i]!.get(path, { headers: { "payment-signature": signature } });
        expect([again.status, again.headers.get("idempotent-replayed")]).toEqual([200, "true"]);
        expect(decodePaymentResponse(again.headers.get("payment-response"))).toEqual(receipt);
      }
    }
    expect(settles - settled).toBe(10);
    expect(ledger.balanceOf(PAYER)).toBe(balance - 10n * 10_000n);
  });

  it("a settlement that timed out (it may have landed) keeps its identifier claimed: a retry re-signed with it is not charged again", async () => {
    const path = "/filings/latest?ticker=HD&limit=2";
    const required = decodePaymentRequired((await replicas[0]!.get(path)).headers.get("payment-required"));
    const id = generatePaymentId();
    const sign = async () => encodePaymentSignatureHeader(await payerClient(ANVIL_KEYS.payer, id).createPaymentPayload(required));
    const [balance, settled] = [ledger.balanceOf(PAYER), settles];
    settleTimesOut = true;
    const first = await replicas[0]!.get(path, { headers: { "payment-signature": await sign() } });
    expect([first.status, (await first.json()).error.code]).toEqual([503, "facilitator_unavailable"]);
    for (const replica of replicas) {
      const retry = await replica.get(path, { headers: { "payment-signature": await sign() } });
      expect(retry.status).toBe(402);
      expect(decodePaymentRequired(retry.headers.get("payment-required")).error).toMatch(/^payment_in_flight: another request holds this payment identifier/);
    }
    expect(settles - settled).toBe(1);
    expect(ledger.balanceOf(PAYER)).toBe(balance - 10_000n); // the first authorization landed; nothing more
  });
});

describe("kept answers and claims, pruned once expired", () => {
  const dir = mkdtempSync(join(tmpdir(), "kept-answers-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("a window is removed once over for a whole window; each pass lists only the windows over since the last", async () => {
    const storage = openStorage(dir);
    const listed: string[] = [];
    const getKeys = storage.getKeys.bind(storage);
    storage.getKeys = ((base: string, options?: never) => (listed.push(base), getKeys(base, options))) as typeof storage.getKeys;
    const answers = new IdempotentAnswers(storage, memoryLogger().log);
    const t0 = Date.now();
    const answer = (expires: number): KeptAnswer => ({ ...keptAnswer, expires_at: expires });
    expect(await answers.claim("old", t0)).toBe(true);
    expect(await answers.claim("old", t0)).toBe(false); // claimed once, whoever asks
    await answers.put("old", answer(t0 + IDEMPOTENCY_WINDOW_MS));
    await vi.waitFor(() => expect(listed).toHaveLength(97)); // the first pass: a day of windows back
    listed.length = 0;

    const later = t0 + 3 * IDEMPOTENCY_WINDOW_MS + 60_000; // "old" expired over a window ago
    expect(await answers.claim("new", later)).toBe(true);
    await vi.waitFor(async () => {
      expect(await storage.hasItem("payments/answers/old.json")).toBe(false);
      expect(await storage.hasItem("payments/claims/old")).toBe(false);
    });
    // One listing per window over since the first pass: three or four, as t0 falls in its window.
    expect(listed).toHaveLength(Math.floor(later / IDEMPOTENCY_WINDOW_MS) - Math.floor(t0 / IDEMPOTENCY_WINDOW_MS));
    expect(listed.every((base) => base.startsWith("payments/expiry/"))).toBe(true); // never every answer
    expect(await storage.hasItem("payments/claims/new")).toBe(true);
    expect(await answers.claim("old", later)).toBe(true); // the identifier is free again
  });

  it("a claim released and the identifier claimed again in a later window: pruning the first window keeps the later answer", async () => {
    const storage = openStorage(mkdtempSync(join(dir, "released-")));
    const answers = new IdempotentAnswers(storage, memoryLogger().log);
    const first = Date.now();
    const firstWindow = Math.floor((first + IDEMPOTENCY_WINDOW_MS) / IDEMPOTENCY_WINDOW_MS);
    const pruned = (firstWindow + 2) * IDEMPOTENCY_WINDOW_MS + 1_000; // the first claim's window over for a whole window
    expect(await answers.claim("id", first)).toBe(true);
    await answers.release("id"); // refused: nothing charged, the identifier may pay again
    const again = pruned - 60_000;
    expect(await answers.claim("id", again)).toBe(true);
    await answers.put("id", { ...keptAnswer, expires_at: again + IDEMPOTENCY_WINDOW_MS });
    expect(await answers.claim("other", pruned)).toBe(true); // prunes the first claim's window
    await vi.waitFor(async () => expect(await storage.getKeys(`payments/expiry/${firstWindow}`)).toEqual([]));
    // Read back by another replica (no memory of it): still kept, still claimed.
    expect(await new IdempotentAnswers(storage, memoryLogger().log).get("id", pruned)).toMatchObject({ expires_at: again + IDEMPOTENCY_WINDOW_MS });
    expect(await storage.hasItem("payments/claims/id")).toBe(true);
  });
});

const keptAnswer: KeptAnswer = {
  request: "/filings/latest {}",
  payload_sha256: "0".repeat(64),
  payer: PAYER,
  body: '{"data":[]}',
  receipt: { success: true, transaction: "0x1", network: "eip155:8453" },
  expires_at: 0,
};
