// `npm run pay`'s one validated configuration, read once from the environment (schemas/env.ts): the buyer's key, or
// the public test key that only dev mode accepts, and the payment identifier; a bad value is one message, no trace.
import { isValidPaymentId, PAYMENT_ID_MAX_LENGTH, PAYMENT_ID_MIN_LENGTH } from "@x402/extensions/payment-identifier";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { z } from "zod";
import { parseEnv } from "../schemas/env.ts";

/** Anvil's account #0: a published test key, worthless anywhere real (dev mode's test USDC credits any payer). */
const ANVIL_TEST_KEY: Hex = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";

const PrivateKey = z
  .string()
  .regex(/^0x[0-9a-fA-F]{64}$/, { message: "must be 0x and 64 hex digits (a 32-byte private key)", abort: true })
  .refine((key) => {
    try {
      privateKeyToAccount(key as Hex);
      return true;
    } catch {
      return false; // zero, or past the curve's order
    }
  }, "is not a valid secp256k1 private key");

const Env = z.object({
  PAYER_PRIVATE_KEY: PrivateKey.optional(),
  // x402 payment-identifier's own rule (16–128 letters, digits, "-" or "_"), as the gateway reads it.
  PAYMENT_ID: z.string().refine(isValidPaymentId, `must be ${PAYMENT_ID_MIN_LENGTH} to ${PAYMENT_ID_MAX_LENGTH} letters, digits, - or _`).optional(),
});

/** What the buyer signs with and names its payments with. */
export interface PayConfig {
  privateKey: Hex;
  /** True when no PAYER_PRIVATE_KEY was given and the public test key signs. */
  testKey: boolean;
  paymentId: string | null;
}

/** Reads and validates the environment; throws `bad configuration: …` naming every bad variable. */
export function loadPayConfig(env: Record<string, string | undefined>): PayConfig {
  const e = parseEnv(Env, env);
  return { privateKey: (e.PAYER_PRIVATE_KEY as Hex | undefined) ?? ANVIL_TEST_KEY, testKey: e.PAYER_PRIVATE_KEY === undefined, paymentId: e.PAYMENT_ID ?? null };
}
