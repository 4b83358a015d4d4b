// Create-if-absent: the one atomic decision the store makes for us, so that whatever must happen once (a key
// shown, a webhook event applied, later a writer's lease) is decided by the store, not by one process's memory.
import type { Driver, Storage } from "unstorage";

/** A driver that can create a key only when it does not exist yet, in one atomic step of its back end. */
export interface ClaimingDriver extends Driver {
  /** Writes `value` at `key` unless the key exists; true when this call created it. Never overwrites. */
  createIfAbsent(key: string, value: Uint8Array): Promise<boolean>;
}

/**
 * Writes `value` at `key` only if nothing is there yet; true when this call created it, false when the key
 * existed (whoever wrote it, in any process). Throws for a driver that cannot decide this atomically.
 */
export async function createIfAbsent(storage: Storage, key: string, value: Uint8Array): Promise<boolean> {
  const normalized = key.replace(/[/\\]/g, ":").replace(/:+/g, ":").replace(/^:|:$/g, "");
  const mount = storage.getMount(normalized);
  const driver = mount.driver as Partial<ClaimingDriver>;
  if (typeof driver.createIfAbsent !== "function") throw new Error(`storage driver ${driver.name ?? "?"} cannot create ${key} atomically`);
  return driver.createIfAbsent(normalized.slice(mount.base.length), value);
}
