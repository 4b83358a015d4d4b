// `npm run pay` as a user runs it (node bin/pay.ts URL) against a dev-mode gateway on a port: it reports paid (with
// the receipt) only when a payment was settled, not charged for an empty answer or a free endpoint, refused otherwise.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { DEV_PAY_TO } from "../gateway/serve/server.ts";
import { createUsdcLedger } from "../gateway/payment/dev-chain/ledger.ts";
import { createLocalFacilitator } from "../gateway/payment/dev-chain/facilitator.ts";
import { describeEdgar } from "../test/_edgar.ts";
import { startTestGateway, type StartedGateway } from "../test/_gateway.ts";
import { addressOf, ANVIL_KEYS } from "../test/_x402.ts";

const PAYER = addressOf(ANVIL_KEYS.payer); // the key bin/pay.ts signs with by default

describeEdgar("npm run pay", () => {
  let started: StartedGateway;
  let base: string;
  const ledger = createUsdcLedger();
  ledger.fund(PAYER, 1_000_000n);

  beforeAll(async () => {
    started = await startTestGateway({ facilitator: createLocalFacilitator(ledger), listen: true });
    base = started.base;
  });
  afterAll(() => started?.close());

  /** Runs the CLI; returns its exit code, its report line (stderr) and the body (stdout), and what the payer spent. */
  async function pay(path: string, env: Record<string, string> = {}, tool: string[] = []) {
    const before = ledger.balanceOf(PAYER);
    const run = promisify(execFile)(process.execPath, ["bin/pay.ts", ...(path ? [`${base}${path}`] : []), ...tool], { env: { ...process.env, ...env } });
    const { stdout, stderr, code } = await run.then(
      (r) => ({ ...r, code: 0 }),
      (e: { stdout: string; stderr: string; code: number }) => e,
    );
    return { code, line: stderr.trim(), body: stdout, spent: before - ledger.balanceOf(PAYER) };
  }

  it("paid: the price, the payer and the settlement receipt; the ledger moved exactly that", async () => {
    const toBefore = ledger.balanceOf(DEV_PAY_TO);
    const r = await pay("/earnings/summary?ticker=WMT&period=annual");
    expect(r.code).toBe(0);
    expect(r.line).toMatch(new RegExp(`^paid: HTTP 200, \\$0\\.02 USDC \\(20000 atomic units of 0x\\w+\\) to ${DEV_PAY_TO} on eip155:8453 by ${PAYER} \\(public test key: dev mode only\\); receipt: \\{"success":true`));
    expect(r.line).toMatch(/"transaction":"0x[0-9a-f]+"/);
    expect(r.spent).toBe(20_000n);
    expect(ledger.balanceOf(DEV_PAY_TO) - toBefore).toBe(20_000n);
    expect(JSON.parse(r.body).data.length).toBeGreaterThan(0);
  });

  it("not charged: an empty answer (signed, never settled), and a free endpoint (nothing signed)", async () => {
    // AAPL's Form 4s in the fixtures are older than the test build's two-year look-back: /insiders is empty.
    const empty = await pay("/insiders?ticker=AAPL");
    expect(empty).toMatchObject({ code: 0, line: "not charged: HTTP 200, an empty answer (0 rows); the signed payment was not settled", spent: 0n });
    expect(JSON.parse(empty.body).data).toEqual([]);
    const free = await pay("/probe?ticker=AAPL");
    expect(free).toMatchObject({ code: 0, line: "not charged: HTTP 200, no payment was asked (a free endpoint, or an API key)", spent: 0n });
  });

  it("refused: the status and the error code, never 'paid'", async () => {
    const uncovered = await pay("/earnings/summary?ticker=MSFT");
    expect(uncovered).toMatchObject({ code: 1, spent: 0n });
    expect(uncovered.line).toMatch(/^refused: HTTP 404 ticker_not_covered — MSFT \(CIK 789019\) is not covered: the source has no company facts/);
    const bad = await pay("/filings/latest?ticker=AAPL&limit=0");
    expect(bad).toMatchObject({ code: 1, spent: 0n });
    expect(bad.line).toMatch(/^refused: HTTP 400 invalid_parameter — /);
    // A payer without test USDC: the gateway refuses the signed payment.
    const broke = await pay("/filings/latest?ticker=AAPL", { PAYER_PRIVATE_KEY: ANVIL_KEYS.stranger });
    expect(broke).toMatchObject({ code: 1, spent: 0n });
    expect(broke.line).toMatch(/^refused: HTTP 402 payment_required — .*; the signed payment was not settled$/);
    expect(broke.line).not.toMatch(/paid/i);
  });

  it("over MCP (the SDK client, tools listed first): paid with the receipt from _meta; refused before any payment", async () => {
    const paid = await pay("/mcp", {}, ["get_earnings_summary", '{"ticker":"WMT","period":"FY2024"}']);
    expect(paid).toMatchObject({ code: 0, spent: 20_000n });
    expect(paid.line).toMatch(new RegExp(`^paid: tool result, \\$0\\.02 USDC .* by ${PAYER} .*; receipt: \\{"success":true`));
    expect(JSON.parse(paid.body).data.length).toBeGreaterThan(0);
    const uncovered = await pay("/mcp", {}, ["get_earnings_summary", '{"ticker":"MSFT"}']);
    expect(uncovered).toMatchObject({ code: 1, spent: 0n });
    expect(uncovered.line).toMatch(/^refused: tool error ticker_not_covered — MSFT/);
    const broke = await pay("/mcp", { PAYER_PRIVATE_KEY: ANVIL_KEYS.stranger }, ["get_latest_filings", '{"ticker":"AAPL"}']);
    expect(broke).toMatchObject({ code: 1, spent: 0n });
    expect(broke.line).toMatch(/^refused: tool error payment_required — .*; the signed payment was not settled$/);
  });

  it("PAYMENT_ID: the repeated request is the kept answer, not charged again, with the first payment's receipt (HTTP and MCP)", async () => {
    for (const [path, tool] of [["/filings/latest?ticker=HD&limit=1", []], ["/mcp", ["get_latest_filings", '{"ticker":"WMT","limit":2}']]] as const) {
      const env = { PAYMENT_ID: `pay_${tool.length ? "mcp" : "http"}_0123456789abcdef` };
      const first = await pay(path, env, [...tool]);
      expect(first).toMatchObject({ code: 0, spent: 10_000n });
      expect(first.line).toMatch(/^paid: /);
      const again = await pay(path, env, [...tool]);
      expect(again).toMatchObject({ code: 0, spent: 0n, body: first.body });
      const receipt = /receipt: (\{.*\})$/.exec(first.line)![1];
      expect(again.line).toBe(
        `not charged again: ${tool.length ? "tool result" : "HTTP 200"}, the answer kept for PAYMENT_ID ${env.PAYMENT_ID} (paid earlier); the signed payment was not settled; its receipt: ${receipt}`,
      );
    }
  });

  it("a bad PAYER_PRIVATE_KEY or PAYMENT_ID: one line naming it, exit 2, no stack trace, nothing signed", async () => {
    const short = await pay("/filings/latest?ticker=AAPL", { PAYER_PRIVATE_KEY: "0x1234" });
    expect(short).toMatchObject({ code: 2, spent: 0n, body: "", line: "bad configuration: PAYER_PRIVATE_KEY must be 0x and 64 hex digits (a 32-byte private key)" });
    const zero = await pay("/filings/latest?ticker=AAPL", { PAYER_PRIVATE_KEY: `0x${"0".repeat(64)}`, PAYMENT_ID: "short" });
    expect(zero.line).toBe("bad configuration: PAYER_PRIVATE_KEY is not a valid secp256k1 private key; PAYMENT_ID must be 16 to 128 letters, digits, - or _");
    expect(zero.code).toBe(2);
  });

  it("without a URL: usage, exit 2; an unreachable service: failed, exit 1", async () => {
    expect(await pay("")).toMatchObject({ code: 2, line: expect.stringMatching(/^usage: npm run pay -- /) });
    const gone = await promisify(execFile)(process.execPath, ["bin/pay.ts", "http://127.0.0.1:9/probe"]).catch((e: { code: number; stderr: string }) => e);
    expect(gone).toMatchObject({ code: 1, stderr: expect.stringMatching(/^failed: http:\/\/127\.0\.0\.1:9\/probe: /) });
  });
});
