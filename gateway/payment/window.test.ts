import { describe, expect, it } from "vitest";
import { CLOCK_SKEW_SECONDS, windowRefusal } from "./window.ts";

const NOW = 1_900_000_000;
const window = (validAfter: number | string, validBefore: number | string) => ({ validAfter: String(validAfter), validBefore: String(validBefore) });

describe("an authorization's validity window against maxTimeoutSeconds (x402 exact EVM)", () => {
  it("accepts the reference client's window (validAfter 0, validBefore = now + maxTimeoutSeconds), a shorter one, and a payer's clock up to the skew ahead", () => {
    expect(windowRefusal(window(0, NOW + 300), 300, NOW)).toBeNull();
    expect(windowRefusal(window(NOW - 600, NOW + 60), 300, NOW)).toBeNull();
    expect(windowRefusal(window(NOW + CLOCK_SKEW_SECONDS, NOW + 300 + CLOCK_SKEW_SECONDS), 300, NOW)).toBeNull();
    expect(windowRefusal(window(0, NOW - 10), 300, NOW)).toBeNull(); // expired: the facilitator's to say
  });

  it("refuses validBefore past now + maxTimeoutSeconds + skew, uint256 values included, naming the field in the spec's code", () => {
    expect(windowRefusal(window(0, NOW + 300 + CLOCK_SKEW_SECONDS + 1), 300, NOW)).toMatch(
      /^invalid_exact_evm_payload_authorization_valid_before: the authorization is valid for 331 s more, and this offer's maxTimeoutSeconds allows 300;/,
    );
    expect(windowRefusal(window(0, Date.UTC(3000, 0, 1) / 1000), 300, NOW)).toMatch(/^invalid_exact_evm_payload_authorization_valid_before: /);
    expect(windowRefusal(window(0, (2n ** 256n - 1n).toString()), 300, NOW)).toMatch(/^invalid_exact_evm_payload_authorization_valid_before: /);
  });

  it("refuses an authorization not valid yet (validAfter past now + skew)", () => {
    expect(windowRefusal(window(NOW + CLOCK_SKEW_SECONDS + 1, NOW + 300), 300, NOW)).toMatch(/^invalid_exact_evm_payload_authorization_valid_after: /);
    expect(windowRefusal(window((2n ** 256n - 1n).toString(), NOW + 300), 300, NOW)).toMatch(/^invalid_exact_evm_payload_authorization_valid_after: /);
  });
});
