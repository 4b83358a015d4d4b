// API keys through a store outage, end to end (issue 39): a gateway over s3rver keeps serving the keys it has seen
// from their last states while s3rver is stopped, says so in /health, and takes up fresh state when it is back.
import { afterAll, afterEach, beforeAll, expect, it, vi } from "vitest";
import { runBuild } from "../../build/pipeline/run.ts";
import { createDirSource } from "../../build/sources/dir.ts";
import { openStorage } from "../../storage/open.ts";
import { describeEdgar, makeOverlayMirror } from "../../test/_edgar.ts";
import { memoryLogger } from "../../test/_logger.ts";
import { testGateway } from "../../test/_gateway.ts";
import { useConditionalS3 } from "../../test/_s3-suite.ts";
import { removeDir } from "../../test/_s3.ts";
import { Health } from "../../schemas/probe.ts";
import { KeyStore } from "./keys.ts";

/** Paid answers whose documents the gateway holds once each was asked for. */
const HELD = ["/filings/latest?ticker=AAPL", "/earnings/summary?ticker=WMT", "/insiders?ticker=JNJ"];

describeEdgar("API keys while the store is down", () => {
  const suite = useConditionalS3();
  let mirror: string;
  beforeAll(() => {
    mirror = makeOverlayMirror();
  });
  afterAll(() => removeDir(mirror));
  afterEach(() => vi.useRealTimers());

  it("a key seen before keeps being served from memory (a revoked one stays 401, one never seen is 503), /health says since when, and a revocation made meanwhile lands within 10 s of the store's return", async () => {
    const location = `s3://${suite.s3.bucket}/keys-outage`;
    await runBuild({ source: createDirSource(mirror), storage: openStorage(location, suite.conditional.env), log: memoryLogger(), tickers: ["AAPL", "WMT", "JNJ"] });
    const gw = testGateway(location, { env: suite.s3.env });
    const operator = new KeyStore(openStorage(location, suite.s3.env)); // the keys CLI, or another replica
    const [live, revoked, unseen] = [await operator.create("live"), await operator.create("revoked"), await operator.create("unseen")];
    await operator.revoke(revoked.id);
    const get = (path: string, key: string) => gw.get(path, { headers: { authorization: `Bearer ${key}` } });
    const health = async () => Health.parse((await (await gw.get("/health")).json()).data);
    for (const path of HELD) expect((await get(path, live.key)).status).toBe(200);
    expect((await get(HELD[0]!, revoked.key)).status).toBe(401);
    expect(await health()).toMatchObject({ status: "ok", keys_stale_since: null });

    await suite.s3.stop();
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
    // Two refresh intervals of the outage, each opening with many keyed requests at once, all past the key's 10 s.
    const statuses: number[] = [];
    const lapsed = Date.now() + 11_000; // the clock stands still between the jumps: the first failed read is at this time
    for (const _interval of [1, 2]) {
      vi.setSystemTime(Date.now() + 11_000);
      for (let round = 0; round < 5; round++) {
        const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => get(HELD[i % HELD.length]!, live.key)));
        statuses.push(...answers.map((res) => res.status));
      }
    }
    expect(statuses).toEqual(Array(600).fill(200));
    const refused = await get(HELD[0]!, revoked.key);
    expect([refused.status, (await refused.json()).error.code]).toEqual([401, "invalid_api_key"]);
    const unknown = await get(HELD[0]!, unseen.key);
    expect([unknown.status, (await unknown.json()).error.code]).toEqual([503, "storage_unavailable"]);
    expect(await health()).toMatchObject({ keys_stale_since: new Date(lapsed).toISOString() });

    await suite.s3.restart();
    expect(await operator.revoke(live.id)).toBe(true); // made while the gateway serves the key from its last state
    expect((await get(HELD[0]!, live.key)).status).toBe(200);
    vi.setSystemTime(Date.now() + 11_000);
    expect((await get(HELD[0]!, live.key)).status).toBe(401);
    expect((await get(HELD[0]!, unseen.key)).status).toBe(200);
    expect(await health()).toMatchObject({ keys_stale_since: null });
    expect(gw.logs.filter((l) => l.event.startsWith("key_states_")).map((l) => [l.level, l.event])).toEqual([
      ["warn", "key_states_stale"],
      ["info", "key_states_fresh"],
    ]);
    gw.close();
  }, 120_000);
});
