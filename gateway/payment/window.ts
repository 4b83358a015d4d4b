// An EIP-3009 authorization's validity window against the requirements it pays: checked in the payment core before
// any facilitator is asked, since @x402/evm 2.27.0's facilitator (and so our dev one) never bounds its length.

/** How far a payer's clock may run ahead of ours, in seconds: a window that long past the rule is still accepted. */
export const CLOCK_SKEW_SECONDS = 30;

/** What the rule reads of an authorization: its times, as the wire writes them (uint256 in decimal). */
interface Window {
  validAfter: string;
  validBefore: string;
}

/**
 * Why an authorization's window is refused; null when it fits. x402's exact scheme on EVM has the verifier check that
 * "the authorization parameters (Amount, Validity Window) meet the PaymentRequirements" (specs/schemes/exact/
 * scheme_exact_evm.md, EIP-3009 Phase 2, step 3), where `maxTimeoutSeconds` is the "maximum time allowed for payment
 * completion" (x402-specification-v2.md §5.1.2), and the reference client signs validBefore = now + maxTimeoutSeconds.
 * So: validBefore - now <= maxTimeoutSeconds, and validAfter <= now (an authorization not yet valid cannot settle now),
 * each with CLOCK_SKEW_SECONDS for a payer's clock. An expired one is left to the facilitator (it says so, and the
 * token contract refuses it anyway). Reasons open with the spec's error codes (§9).
 */
export function windowRefusal(authorization: Window, maxTimeoutSeconds: number, nowSeconds: number): string | null {
  const ahead = BigInt(authorization.validBefore) - BigInt(nowSeconds);
  if (ahead > BigInt(maxTimeoutSeconds + CLOCK_SKEW_SECONDS)) {
    return (
      `invalid_exact_evm_payload_authorization_valid_before: the authorization is valid for ${ahead} s more, and this offer's ` +
      `maxTimeoutSeconds allows ${maxTimeoutSeconds}; sign validBefore = now + ${maxTimeoutSeconds} (or less)`
    );
  }
  if (BigInt(authorization.validAfter) > BigInt(nowSeconds + CLOCK_SKEW_SECONDS)) {
    return "invalid_exact_evm_payload_authorization_valid_after: the authorization is not valid yet (validAfter is in the future); sign a validAfter no later than now";
  }
  return null;
}
