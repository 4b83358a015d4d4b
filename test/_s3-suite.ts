// s3rver behind the conditional-write stand-in for a test suite: started before its tests, stopped after them (kept
// apart from _s3.ts, which benchmarks import without vitest).
import { afterAll, beforeAll } from "vitest";
import { startConditionalS3, startS3, type ConditionalS3, type S3Server } from "./_s3.ts";

/** Registers the suite's hooks; the returned object's `s3` and `conditional` are set once its tests run. */
export function useConditionalS3(): { readonly s3: S3Server; readonly conditional: ConditionalS3 } {
  let s3: S3Server | undefined;
  let conditional: ConditionalS3 | undefined;
  beforeAll(async () => {
    s3 = await startS3();
    conditional = await startConditionalS3(s3);
  });
  afterAll(async () => {
    await conditional?.stop();
    await s3?.close();
  });
  return {
    get s3() {
      if (!s3) throw new Error("s3rver is started before the suite's tests");
      return s3;
    },
    get conditional() {
      if (!conditional) throw new Error("the conditional-write stand-in is started before the suite's tests");
      return conditional;
    },
  };
}
