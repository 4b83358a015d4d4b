// `npm run serve -- --data DEST --port N`: the gateway over an existing store (env DATA_URL, PORT, PUBLIC_BASE_URL).
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { loadConfig } from "./config.ts";
import { listen } from "./serve/listen.ts";

const USAGE = `usage: npm run serve -- [--data DEST] [--port N]
Serves the snapshot published in DEST (a folder, fs:PATH or s3://bucket/prefix; default $DATA_URL or data/) on
$HOST:$PORT (127.0.0.1:3000); --port overrides PORT. Everything else is set in the environment: docs/configuration.md.
Build a snapshot first (npm run dataset -- build), or use npm start, which builds one when the store has none.`;

/** Parses the flags, validates the environment and serves; returns an exit code on failure. */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let values;
  try {
    values = parseArgs({ args: argv, options: { data: { type: "string" }, port: { type: "string" }, help: { type: "boolean", short: "h" } } }).values;
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  try {
    if (values.port !== undefined && !/^\d{1,5}$/.test(values.port)) throw new Error(`--port must be a number, got "${values.port}"`);
    const config = loadConfig(env, {
      ...(values.port ? { port: Number(values.port) } : {}),
      ...(values.data ? { dataUrl: values.data } : {}),
    });
    await listen(config);
    return 0;
  } catch (error) {
    console.error(`serve failed: ${(error as Error).message}`);
    return 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const code = await main(process.argv.slice(2));
  if (code) process.exit(code);
}
