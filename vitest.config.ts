// Vitest configuration: tests sit beside the code; a plain "N passed, N failed" line closes the run for CI.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["{schemas,build,gateway,storage,logging,bin,test}/**/*.test.ts"],
    reporters: ["default", "./test/_summary-reporter.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000, // a beforeAll that builds a snapshot from the fixtures can take 10 s on a loaded machine
    pool: "forks",
  },
});
