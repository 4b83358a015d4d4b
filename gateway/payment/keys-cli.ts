// `npm run keys -- create | revoke KEY | list [--data DEST]`: API keys for operators; `list` shows Stripe
// subscription keys with their status. `create` prints the new key once, alone on its last line; nothing else does.
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { parseEnv } from "../../schemas/env.ts";
import { openStorage, storageEnvOf, StorageVariables } from "../../storage/open.ts";
import { KeyStore, keyUsable, type KeyRecord } from "./keys.ts";

const USAGE = `usage: npm run keys -- create [--label TEXT] | revoke KEY|ID | list   [--data DEST]
create prints a new operator key once, alone on its last line; revoke takes the key or its 12-character id from list;
list shows every key (never the key itself) with its state. DEST: a folder, fs:PATH or s3://bucket/prefix (default
$DATA_URL or data/), the gateway's store.`;

/** Runs one keys command; returns the exit code (2 for a bad command line or environment, 1 for a failed command). */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env, print = console.log): Promise<number> {
  let parsed;
  let keys;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: { data: { type: "string" }, label: { type: "string" }, help: { type: "boolean", short: "h" } } });
    if (parsed.values.help) {
      print(USAGE);
      return 0;
    }
    // The keys CLI's whole configuration is the store's: the same variables the gateway and the builder validate.
    const config = parseEnv(StorageVariables, env);
    keys = new KeyStore(openStorage(parsed.values.data ?? config.DATA_URL, storageEnvOf(config)));
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const [command, arg] = parsed.positionals;
  try {
    return await run(keys, command, arg, parsed.values.label, print);
  } catch (error) {
    console.error(`keys ${command} failed: ${(error as Error).message}`);
    return 1;
  }
}

/** One command against the store; an unknown one is a usage error (2). */
async function run(keys: KeyStore, command: string | undefined, arg: string | undefined, label: string | undefined, print: (line: string) => void): Promise<number> {
  if (command === "create") {
    const { key, id } = await keys.create(label ?? null);
    print(`created key ${id}${label ? ` (${label})` : ""}; it is shown once, store it now:`);
    print(key);
    return 0;
  }
  if (command === "revoke" && arg) {
    if (await keys.revoke(arg)) {
      print("revoked");
      return 0;
    }
    console.error("no such key");
    return 1;
  }
  if (command === "list") {
    const all = await keys.list();
    const now = new Date();
    for (const k of all) print(`${k.id}  created ${k.created_at}  ${state(k, now)}  ${k.label ?? ""}`.trimEnd());
    print(`${all.length} keys`);
    return 0;
  }
  console.error(USAGE);
  return 2;
}

/** "active", "revoked …", or for a subscription key its Stripe status, whether it is accepted now, and its period end. */
function state(record: KeyRecord, now: Date): string {
  if (record.revoked_at) return `revoked ${record.revoked_at}`;
  const sub = record.subscription;
  if (!sub) return "active";
  const end = sub.current_period_end ? `, ${sub.cancel_at_period_end ? "ends" : "renews"} ${sub.current_period_end}` : "";
  return `subscription ${sub.status} (${keyUsable(record, now) ? "accepted" : "refused"}${end})  ${sub.customer} ${sub.id}`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) process.exitCode = await main(process.argv.slice(2));
