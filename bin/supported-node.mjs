// Runs before any .ts file loads — npm's preinstall, and `--import` ahead of every program in package.json — so that
// a Node that cannot run TypeScript as it is (20, 22 before 22.18, 23.0–23.5) is refused in one line, where Node
// itself would die with ERR_UNKNOWN_FILE_EXTENSION and a stack trace (issue 42). Plain JavaScript, for any Node.
import { readFileSync } from "node:fs";

if (!process.features.typescript) {
  const { engines } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
  console.error(
    `This Node (${process.version}) does not run TypeScript files; Filing Data Service needs Node ${engines.node}, which does: ` +
      "install Node 24 (e.g. `nvm install 24`) and run the command again.",
  );
  process.exit(1);
}
