// Vitest's global setup: a folder for what one run of the suite builds once and every file copies (buildTestData),
// named to the test processes in TEST_BUILD_CACHE and removed when the run ends.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), "test-build-cache-"));
  process.env.TEST_BUILD_CACHE = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}
