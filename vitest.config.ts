// Vitest configuration: tests sit beside the code; a plain "N passed, N failed" line closes the run for CI.
import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["{schemas,build,gateway,storage,logging,bin,test}/**/*.test.ts"],
    reporters: ["default", "./test/_summary-reporter.ts"],
    globalSetup: ["./test/_global-setup.ts"],
    testTimeout: 60_000, // a build of the fixtures is ~10 s alone and up to 30 s beside two other files on 2 cores
    hookTimeout: 60_000, // a beforeAll that builds a snapshot from the fixtures can take 10 s on a loaded machine
    pool: "forks",
    // A worker runs its files in one module graph rather than importing the gateway, the AWS SDK and viem afresh for
    // each: 21-32 s of imports in a full run instead of 157-164; 463-467 s against 536 here, 523 against 560 in a clean
    // clone (no vitest cache to order files by); passing in shuffled orders. No test relies on a fresh module: each
    // restores what it fakes, and a helper's server that outlives its file stays quiet (test/_facilitator-server.ts).
    isolate: false,
    // s3rver (the tests' S3) signs its listing continuation tokens with DES, which OpenSSL 3 keeps in its legacy
    // provider: without it every listing of more than 1,000 keys is an InternalError (a build's screens are ~2,000).
    execArgv: ["--openssl-legacy-provider"],
    // Most long files wait on loopback servers, child processes, rate limits and timers, not on a core: one more file
    // at a time than there are cores keeps both busy (on 2 cores: 3 at once, 8.5 min against 10 with 2 at once).
    maxWorkers: availableParallelism() + 1,
  },
});
