// x402 v2 as this service accepts and keeps it: the exact-EVM payment payload a client sends (x402 spec §5.2,
// scheme_exact_evm), the settlement receipt (§5.3) and a paid answer kept for idempotent retries (payment-identifier).
import { z } from "zod";

const Address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, "must be a 0x-prefixed 20-byte address");
/** A uint256 written in decimal, as EIP-3009 amounts and times are on the wire. */
const Uint = z.string().regex(/^(0|[1-9]\d{0,77})$/, "must be a whole number written in decimal digits");
const Bytes32 = z.string().regex(/^0x[0-9a-fA-F]{64}$/, "must be 32 bytes of 0x-prefixed hex");
// 65 bytes for an EOA; smart wallets (ERC-1271, ERC-6492) sign longer. Bounded so a payload stays small.
const Signature = z.string().regex(/^0x([0-9a-fA-F]{2}){65,4096}$/, "must be a 0x-prefixed hex signature of at least 65 bytes");

/** The requirements a client says it accepted (one entry of PaymentRequired.accepts). */
const AcceptedRequirements = z.looseObject({
  scheme: z.string().min(1).max(32),
  network: z.string().min(3).max(64),
  amount: Uint,
  asset: Address,
  payTo: Address,
  maxTimeoutSeconds: z.number().int().positive(),
  extra: z.record(z.string(), z.unknown()).nullish(),
});

/**
 * An x402 v2 PaymentPayload for the exact scheme on an EVM network (EIP-3009 transferWithAuthorization): the only
 * kind this service is paid with. Anything else is refused with 402 before a facilitator is asked.
 */
export const ExactEvmPaymentPayload = z.looseObject({
  x402Version: z.literal(2, "x402Version must be 2"),
  resource: z.looseObject({ url: z.string().max(2048) }).nullish(),
  accepted: AcceptedRequirements,
  payload: z.looseObject({
    signature: Signature,
    authorization: z.object({
      from: Address,
      to: Address,
      value: Uint,
      validAfter: Uint,
      validBefore: Uint,
      nonce: Bytes32,
    }),
  }),
  extensions: z.record(z.string(), z.unknown()).nullish(),
});

/** A settlement's outcome (SettlementResponse): PAYMENT-RESPONSE over HTTP, `_meta["x402/payment-response"]` over MCP. */
export const SettleReceipt = z.looseObject({
  success: z.boolean(),
  transaction: z.string(),
  network: z.string(),
  payer: z.string().optional(),
  errorReason: z.string().optional(),
  amount: z.string().optional(),
});
export type SettleReceipt = z.infer<typeof SettleReceipt>;

/**
 * A paid answer kept for the payment-identifier window: a client that lost it and repeats the request with the same
 * identifier gets these very bytes and this receipt again, and is not charged twice.
 */
export const KeptAnswer = z.object({
  /** Route and query of the paid request: the same identifier for another request is a conflict (409). */
  request: z.string(),
  /** SHA-256 of the exact payment payload first presented with this identifier. */
  payload_sha256: z.string().regex(/^[0-9a-f]{64}$/),
  payer: Address,
  /** The answer's envelope as it was sent (UTF-8 JSON text). */
  body: z.string(),
  receipt: SettleReceipt,
  expires_at: z.number().int(),
});
export type KeptAnswer = z.infer<typeof KeptAnswer>;

/**
 * The PaymentRequired as a paid tool's outputSchema admits it (x402 spec §5.1; loose: extensions add keys). The
 * official SDK client validates any structuredContent against the tool's outputSchema, error results included.
 */
export const PaymentRequiredResult = z.looseObject({
  x402Version: z.literal(2),
  error: z.string().optional(),
  resource: z.looseObject({ url: z.string() }),
  accepts: z
    .array(z.looseObject({ scheme: z.string(), network: z.string(), amount: z.string(), asset: z.string(), payTo: z.string(), maxTimeoutSeconds: z.number() }))
    .min(1),
  extensions: z.record(z.string(), z.unknown()).optional(),
});

/**
 * A refusal in x402's MCP extension binding (specs/transports-v2/mcp.md, `org.x402/payment`, MCP 2026-07-28 on): a
 * result of its own type carrying the PaymentRequired, a failed settlement's receipt in `_meta`.
 */
export const PaymentRequiredExtensionResult = z.object({
  resultType: z.literal("payment_required"),
  paymentRequired: PaymentRequiredResult,
  _meta: z.looseObject({ "x402/payment-response": SettleReceipt.optional() }).optional(),
});
export type PaymentRequiredExtensionResult = z.infer<typeof PaymentRequiredExtensionResult>;

// A facilitator's replies (x402 spec §7: /verify, /settle, /supported), read as the spec writes them (loose:
// facilitators add fields).
export const VerifyReply = z.looseObject({ isValid: z.boolean(), invalidReason: z.string().nullish(), invalidMessage: z.string().nullish(), payer: z.string().nullish() });
export const SettleReply = SettleReceipt.extend({
  payer: z.string().nullish(),
  errorReason: z.string().nullish(),
  errorMessage: z.string().nullish(),
  amount: z.string().nullish(),
});
export const SupportedReply = z.looseObject({
  kinds: z.array(z.looseObject({ x402Version: z.number(), scheme: z.string(), network: z.string(), extra: z.record(z.string(), z.unknown()).optional() })),
  extensions: z.array(z.string()).default([]),
  signers: z.record(z.string(), z.array(z.string())).default({}),
});
/** The EXTENSION-RESPONSES header: base64 of a JSON object keyed by extension. */
export const ExtensionResponses = z.record(z.string(), z.unknown());
