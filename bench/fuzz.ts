// The hostile suite's long run: test/_fuzz.ts's cases and properties, `--cases N` of them (default 200,000), in rounds
// of 10,000 with fresh genuine payments each (they are signed for 300 s). Throws on the first broken property, and
// on anything written raw to the console or stderr (the gateway logs through its logger only).
import fc from "fast-check";
import { flag } from "./_server-process.ts";
import { finalChecks, fuzzCase, runCase, signGenuine, startFuzzWorld } from "../test/_fuzz.ts";
import { quietConsole } from "../test/_x402.ts";

const ROUND = 10_000;

export async function run(args: string[]): Promise<Record<string, unknown>> {
  const cases = Number(flag(args, "--cases") ?? 200_000);
  const seed = Number(flag(args, "--seed") ?? Date.now() % 2 ** 31);
  const world = await startFuzzWorld();
  const quiet = quietConsole();
  let written: string[] = [];
  const started = performance.now();
  try {
    for (let done = 0, round = 0; done < cases; done += ROUND, round++) {
      if (round > 0) await signGenuine(world);
      await fc.assert(fc.asyncProperty(fuzzCase(world), (c) => runCase(world, c)), { numRuns: Math.min(ROUND, cases - done), seed: seed + round });
      await finalChecks(world);
    }
  } finally {
    written = quiet.restore();
    await world.close();
  }
  if (written.length > 0) throw new Error(`${written.length} raw writes to the console or stderr, the first: ${written[0]!.slice(0, 300)}`);
  const seconds = (performance.now() - started) / 1000;
  const tally = Object.fromEntries(Object.entries(world.tally).sort(([a], [b]) => (a < b ? -1 : 1)));
  return { cases, seed, seconds: Math.round(seconds), cases_per_s: Math.round(cases / seconds), errors_5xx_by_code: world.fiveHundreds, by_answer: tally };
}
