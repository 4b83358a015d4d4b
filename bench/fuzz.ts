// The hostile suite's long run: test/_fuzz.ts's cases and properties, `--cases N` of them (default 200,000), in rounds
// of 10,000 with fresh genuine payments each (they are signed for 300 s). Throws on the first broken property.
import fc from "fast-check";
import { flag } from "./_server-process.ts";
import { finalChecks, fuzzCase, runCase, signGenuine, startFuzzWorld } from "../test/_fuzz.ts";

const ROUND = 10_000;

export async function run(args: string[]): Promise<Record<string, unknown>> {
  const cases = Number(flag(args, "--cases") ?? 200_000);
  const seed = Number(flag(args, "--seed") ?? Date.now() % 2 ** 31);
  const world = await startFuzzWorld();
  // @x402/core logs each undecodable PAYMENT-SIGNATURE; thousands of those lines say nothing here.
  const [error, warn] = [console.error, console.warn];
  console.error = console.warn = () => {};
  const started = performance.now();
  try {
    for (let done = 0, round = 0; done < cases; done += ROUND, round++) {
      if (round > 0) await signGenuine(world);
      await fc.assert(fc.asyncProperty(fuzzCase(world), (c) => runCase(world, c)), { numRuns: Math.min(ROUND, cases - done), seed: seed + round });
      await finalChecks(world);
    }
  } finally {
    [console.error, console.warn] = [error, warn];
    await world.close();
  }
  const seconds = (performance.now() - started) / 1000;
  const tally = Object.fromEntries(Object.entries(world.tally).sort(([a], [b]) => (a < b ? -1 : 1)));
  return { cases, seed, seconds: Math.round(seconds), cases_per_s: Math.round(cases / seconds), errors_5xx_by_code: world.fiveHundreds, by_answer: tally };
}
