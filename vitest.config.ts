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
    // each: 21-25 s of imports in a full run instead of 157, 463-467 s against 536 (and in shuffled file orders, as a
    // clean clone without vitest's cache orders them). No test relies on a fresh module: each restores what it fakes.
    isolate: false,
    // s3rver (the tests' S3) signs its listing continuation tokens with DES, which OpenSSL 3 keeps in its legacy
    // provider: without it every listing of more than 1,000 keys is an InternalError (a build's screens are ~2,000).
    execArgv: ["--openssl-legacy-provider"],
    // Most long files wait on loopback servers, child processes, rate limits and timers, not on a core: one more file
    // at a time than there are cores keeps both busy (on 2 cores: 3 at once, 8.5 min against 10 with 2 at once).
    maxWorkers: availableParallelism() + 1,
  },
});
