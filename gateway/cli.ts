// `npm run serve -- --data DEST --port N`: the gateway over an existing store (env DATA_URL, PORT, PUBLIC_BASE_URL).
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { loadConfig } from "./config.ts";
import { listen } from "./serve/listen.ts";

/** Parses the flags, validates the environment and serves; returns an exit code on failure. */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  try {
    const { values } = parseArgs({ args: argv, options: { data: { type: "string" }, port: { type: "string" } } });
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
