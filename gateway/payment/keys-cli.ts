// `npm run keys -- create | revoke KEY | list [--data DEST]`: API keys for operators; `list` shows Stripe
// subscription keys with their status. `create` prints the new key once, alone on its last line; nothing else does.
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { openStorage, storageEnvOf } from "../../storage/open.ts";
import { KeyStore, keyUsable, type KeyRecord } from "./keys.ts";

const USAGE = "usage: keys create [--label TEXT] | keys revoke KEY|ID | keys list   [--data DEST] (default $DATA_URL or data/)";

/** Runs one keys command; returns the exit code. */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env, print = console.log): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: { data: { type: "string" }, label: { type: "string" } } });
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const [command, arg] = parsed.positionals;
  const keys = new KeyStore(openStorage(parsed.values.data ?? env.DATA_URL ?? "data", storageEnvOf(env)));
  if (command === "create") {
    const { key, id } = await keys.create(parsed.values.label ?? null);
    print(`created key ${id}${parsed.values.label ? ` (${parsed.values.label})` : ""}; it is shown once, store it now:`);
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
