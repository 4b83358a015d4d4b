// The dev/test payment chain, end to end with real parts: a real x402 client signs, a real x402ResourceServer asks, the real
// exact-EVM facilitator verifies and settles on the in-memory ledger — in-process and through the loopback HTTP wire API.
import { FacilitatorTimeoutError, x402ResourceServer, type FacilitatorClient } from "@x402/core/server";
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/server";
import { afterEach, describe, expect, it, vi } from "vitest";
import { addressOf, ANVIL_KEYS, payerClient, startLoopbackFacilitator, withFailingSettlement, type LoopbackFacilitator } from "../../../test/_x402.ts";
import { eip3009ABI } from "@x402/evm";
import type { Hex } from "viem";
import { BASE_USDC, createUsdcLedger, type LedgerOptions, type UsdcLedger } from "./ledger.ts";
import { BASE_NETWORK, createLocalFacilitator } from "./facilitator.ts";

const PAYER = addressOf(ANVIL_KEYS.payer);
const PAY_TO = addressOf(ANVIL_KEYS.payTo);
const ONE_USDC = 1_000_000n;
const PRICE_ATOMIC = 10_000n; // "$0.01" in USDC's 6 decimals

const servers: LoopbackFacilitator[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const transports = {
  "in-process": async (ledger: UsdcLedger): Promise<FacilitatorClient> => createLocalFacilitator(ledger),
  "loopback HTTP": async (ledger: UsdcLedger): Promise<FacilitatorClient> => {
    const server = await startLoopbackFacilitator(ledger);
    servers.push(server);
    return server.client;
  },
};

describe.each(Object.entries(transports))("exact-EVM payments on the ledger (%s facilitator)", (_, connect) => {
  // A payer funded with `funds` (or left to autoCredit) and a $0.01 route whose facilitator settles on the ledger.
  async function setup(funds: bigint | null = ONE_USDC, ledgerOptions: LedgerOptions = {}) {
    const ledger = withFailingSettlement(createUsdcLedger(ledgerOptions));
    if (funds !== null) ledger.fund(PAYER, funds);
    const facilitator = await connect(ledger);
    const { server, requirements, paymentRequired } = await paidRoute(facilitator);
    // Signs what the 402 offers, or a variant of it (wrong recipient, lower amount) to present against the real requirements.
    const pay = (change: Partial<PaymentRequirements> = {}, key = ANVIL_KEYS.payer): Promise<PaymentPayload> =>
      payerClient(key).createPaymentPayload(withAccepted(paymentRequired, change));
    const verify = (payload: PaymentPayload) => server.verifyPayment(payload, requirements);
    const settle = (payload: PaymentPayload) => server.settlePayment(payload, requirements);
    return { ledger, facilitator, pay, verify, settle };
  }

  it("verifies and settles a valid payment, moving exactly the price from payer to payTo", async () => {
    const { ledger, pay, verify, settle } = await setup();
    const payload = await pay();
    expect(await verify(payload)).toMatchObject({ isValid: true, payer: PAYER });
    const settled = await settle(payload);
    expect(settled).toMatchObject({ success: true, network: BASE_NETWORK, payer: PAYER });
    expect(settled.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect(ledger.balanceOf(PAYER)).toBe(ONE_USDC - PRICE_ATOMIC);
    expect(ledger.balanceOf(PAY_TO)).toBe(PRICE_ATOMIC);
  });

  it("refuses a replayed payload: the authorization nonce is spent", async () => {
    const { ledger, pay, verify, settle } = await setup();
    const payload = await pay();
    expect((await settle(payload)).success).toBe(true);
    expect(await verify(payload)).toMatchObject({ isValid: false, invalidReason: "invalid_exact_evm_nonce_already_used" });
    expect(await settle(payload)).toMatchObject({ success: false, errorReason: "invalid_exact_evm_nonce_already_used" });
    expect(ledger.balanceOf(PAYER)).toBe(ONE_USDC - PRICE_ATOMIC);
  });

  it("refuses a tampered signature", async () => {
    const { pay, verify, settle } = await setup();
    const payload = await pay();
    const tampered = { ...payload, payload: { ...payload.payload, signature: flipByte(payload.payload.signature as string) } };
    expect(await verify(tampered)).toMatchObject({ isValid: false, invalidReason: "invalid_exact_evm_signature" });
    expect(await settle(tampered)).toMatchObject({ success: false, errorReason: "invalid_exact_evm_signature" });
  });

  it("refuses a payment signed to another recipient", async () => {
    const { pay, verify } = await setup();
    const payload = await pay({ payTo: addressOf(ANVIL_KEYS.stranger) });
    expect(await verify(payload)).toMatchObject({ isValid: false, invalidReason: "invalid_exact_evm_recipient_mismatch" });
  });

  it("refuses an under-payment", async () => {
    const { pay, verify } = await setup();
    const payload = await pay({ amount: (PRICE_ATOMIC - 1n).toString() });
    expect(await verify(payload)).toMatchObject({ isValid: false, invalidReason: "invalid_exact_evm_payload_authorization_value_mismatch" });
  });

  it("refuses an expired authorization", async () => {
    const { ledger, pay, verify, settle } = await setup();
    const payload = await pay();
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 301_000); // past validBefore = signing time + maxTimeoutSeconds (300)
    expect(await verify(payload)).toMatchObject({ isValid: false, invalidReason: "invalid_exact_evm_payload_authorization_valid_before" });
    expect(await settle(payload)).toMatchObject({ success: false, errorReason: "invalid_exact_evm_payload_authorization_valid_before" });
    expect(ledger.balanceOf(PAYER)).toBe(ONE_USDC);
  });

  it("refuses an unfunded payer with an insufficient-balance reason", async () => {
    const { pay, verify, settle } = await setup(null);
    const payload = await pay();
    expect(await verify(payload)).toMatchObject({ isValid: false, invalidReason: "invalid_exact_evm_insufficient_balance" });
    expect(await settle(payload)).toMatchObject({ success: false, errorReason: "invalid_exact_evm_insufficient_balance" });
  });

  it("refuses a signature over another EIP-712 domain: the ledger's own check, diagnosed by the token name", async () => {
    const { facilitator, pay, verify } = await setup();
    // Requirements naming Base Sepolia's "USDC" domain: the facilitator's own check passes, only the "contract" knows its name.
    const payload = await pay({ extra: { name: "USDC", version: "2" } });
    expect(await facilitator.verify(payload, payload.accepted)).toMatchObject({
      isValid: false,
      invalidReason: "invalid_exact_evm_token_name_mismatch",
    });
    expect(await verify(payload)).toMatchObject({ isValid: false, invalidReason: "invalid_exact_evm_signature" });
  });

  it("credits a never-seen payer once when autoCredit is on", async () => {
    const { ledger, pay, verify, settle } = await setup(null, { autoCreditAtomic: ONE_USDC });
    expect(ledger.balanceOf(PAYER)).toBe(0n);
    const first = await pay();
    expect(await verify(first)).toMatchObject({ isValid: true });
    expect((await settle(first)).success).toBe(true);
    expect((await settle(await pay())).success).toBe(true);
    expect(ledger.balanceOf(PAYER)).toBe(ONE_USDC - 2n * PRICE_ATOMIC);
    expect(ledger.balanceOf(PAY_TO)).toBe(2n * PRICE_ATOMIC);
  });

  it("reports a reverted settlement (the test lever failNextSettlement), moving nothing and leaving the authorization usable", async () => {
    const { ledger, pay, verify, settle } = await setup();
    const payload = await pay();
    expect((await verify(payload)).isValid).toBe(true);
    ledger.failNextSettlement();
    const failed = await settle(payload);
    expect(failed).toMatchObject({ success: false, errorReason: "invalid_exact_evm_transaction_failed" });
    expect(failed.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect(ledger.balanceOf(PAYER)).toBe(ONE_USDC);
    expect((await settle(payload)).success).toBe(true);
  });
});

describe("the ledger as the USDC contract", () => {
  it("enforces validBefore and spent nonces itself, reverting with FiatToken's reasons", async () => {
    const ledger = createUsdcLedger({ autoCreditAtomic: ONE_USDC });
    const { call, authorization: a } = await signedTransfer(ledger);
    const used = { address: BASE_USDC, abi: eip3009ABI, functionName: "authorizationState", args: [a.from, a.nonce] };

    await expect(ledger.readContract(used)).resolves.toBe(false);
    await ledger.writeContract(call);
    await expect(ledger.readContract(used)).resolves.toBe(true);
    await expect(ledger.writeContract(call)).rejects.toThrow("FiatTokenV2: authorization is used or canceled");
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 301_000);
    await expect(ledger.readContract(call)).rejects.toThrow("FiatTokenV2: authorization is expired");
  });
});

describe("one authorization settled at once from many places (the nonce is marked atomically, as FiatToken does)", () => {
  it("20 transactions of one authorization at once: exactly one transfers, 19 revert as used", async () => {
    const ledger = createUsdcLedger({ autoCreditAtomic: ONE_USDC });
    const { call } = await signedTransfer(ledger);
    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => ledger.writeContract(call)));
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
    for (const o of outcomes.filter((o) => o.status === "rejected")) expect(String((o as PromiseRejectedResult).reason)).toMatch(/authorization is used or canceled/);
    expect(ledger.balanceOf(PAYER)).toBe(ONE_USDC - PRICE_ATOMIC);
  });

  it.each(Object.entries(transports))("20 settlements of one payload through the %s facilitator at once: one success", async (_, connect) => {
    const ledger = createUsdcLedger();
    ledger.fund(PAYER, ONE_USDC);
    const { server, requirements, paymentRequired } = await paidRoute(await connect(ledger));
    const payload = await payerClient(ANVIL_KEYS.payer).createPaymentPayload(paymentRequired);
    const settled = await Promise.all(Array.from({ length: 20 }, () => server.settlePayment(payload, requirements)));
    expect(settled.filter((s) => s.success)).toHaveLength(1);
    expect(ledger.balanceOf(PAYER)).toBe(ONE_USDC - PRICE_ATOMIC);
    expect(ledger.balanceOf(PAY_TO)).toBe(PRICE_ATOMIC);
  });
});

describe("the loopback facilitator's wire API and outage modes", () => {
  async function start(options: { slowMs?: number; timeoutMs?: number } = {}) {
    const server = await startLoopbackFacilitator(createUsdcLedger(), options);
    servers.push(server);
    return server;
  }

  it("lists exact on eip155:8453 at GET /supported", async () => {
    const { client } = await start();
    const supported = await client.getSupported();
    expect(supported.kinds).toContainEqual(expect.objectContaining({ x402Version: 2, scheme: "exact", network: BASE_NETWORK }));
  });

  it("answers 400 to a /verify body that is not {paymentPayload, paymentRequirements}", async () => {
    const { url } = await start();
    const response = await fetch(`${url}/verify`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(response.status).toBe(400);
  });

  it("answers 503 to everything when down, and recovers when set back to ok", async () => {
    const server = await start();
    server.setMode("down");
    await expect(server.client.getSupported()).rejects.toThrow(/\(503\)/);
    const resourceServer = new x402ResourceServer(server.client).register(BASE_NETWORK, new ExactEvmScheme());
    await expect(resourceServer.initialize()).rejects.toThrow(/no supported payment kinds/);
    server.setMode("ok");
    await expect(server.client.getSupported()).resolves.toMatchObject({ kinds: expect.any(Array) });
  });

  it("makes HTTPFacilitatorClient time out when slow", async () => {
    const server = await start({ slowMs: 2_000, timeoutMs: 100 });
    server.setMode("slow");
    await expect(server.client.getSupported()).rejects.toBeInstanceOf(FacilitatorTimeoutError);
  });

  it("refuses connections once closed", async () => {
    const server = await start();
    await server.close();
    await expect(server.client.getSupported()).rejects.toThrow(/fetch failed/);
  });
});

// The transferWithAuthorization call a facilitator would send for a real client's payment on a $0.01 route.
async function signedTransfer(ledger: UsdcLedger) {
  const { paymentRequired } = await paidRoute(createLocalFacilitator(ledger));
  const payload = await payerClient(ANVIL_KEYS.payer).createPaymentPayload(paymentRequired);
  const { authorization, signature } = payload.payload as { authorization: Record<string, string>; signature: Hex };
  const a = authorization;
  const args = [a.from, a.to, BigInt(a.value!), BigInt(a.validAfter!), BigInt(a.validBefore!), a.nonce, signature];
  return { authorization, call: { address: BASE_USDC, abi: eip3009ABI, functionName: "transferWithAuthorization", args } };
}

// A $0.01 route on Base, built by a real x402ResourceServer as the gateway builds it.
async function paidRoute(facilitator: FacilitatorClient) {
  const server = new x402ResourceServer(facilitator).register(BASE_NETWORK, new ExactEvmScheme());
  await server.initialize();
  const [requirements] = await server.buildPaymentRequirements({ scheme: "exact", network: BASE_NETWORK, payTo: PAY_TO, price: "$0.01" });
  if (!requirements) throw new Error("no payment requirements built");
  const resource = { url: "http://127.0.0.1/v1/test", description: "test route", mimeType: "application/json" };
  return { server, requirements, paymentRequired: await server.createPaymentRequiredResponse([requirements], resource) };
}

function withAccepted(paymentRequired: PaymentRequired, change: Partial<PaymentRequirements>): PaymentRequired {
  return { ...paymentRequired, accepts: paymentRequired.accepts.map((accepted) => ({ ...accepted, ...change })) };
}

// Flips the lowest bit of r's first byte: still a well-formed 65-byte signature, but no longer the payer's.
function flipByte(signature: string): string {
  return `0x${(parseInt(signature.slice(2, 4), 16) ^ 1).toString(16).padStart(2, "0")}${signature.slice(4)}`;
}
