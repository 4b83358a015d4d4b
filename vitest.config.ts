// Vitest configuration: tests sit beside the code; a plain "N passed, N failed" line closes the run for CI.
import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["{schemas,build,gateway,storage,logging,bin,test}/**/*.test.ts"],
    reporters: ["default", "./test/_summary-reporter.ts"],
    globalSetup: ["./test/_global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000, // a beforeAll that builds a snapshot from the fixtures can take 10 s on a loaded machine
    pool: "forks",
    // s3rver (the tests' S3) signs its listing continuation tokens with DES, which OpenSSL 3 keeps in its legacy
    // provider: without it every listing of more than 1,000 keys is an InternalError (a build's screens are ~2,000).
    execArgv: ["--openssl-legacy-provider"],
    // Vitest leaves a core to its own process (cores − 1: one file at a time on 2 cores); most of the long files wait on
    // loopback servers, child processes and timers, so two at a time halve the suite there (7 min → 4 on this machine).
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
