// Removing a whole folder of the store (an old snapshot) in as few calls as the back end allows.
import type { Storage } from "unstorage";

/**
 * Removes every key under `prefix`. unstorage's own `clear(base)` skips a driver mounted above the base,
 * so this asks the mounted driver directly (S3 deletes 1,000 keys a call; the folder driver removes the folder).
 */
export async function removePrefix(storage: Storage, prefix: string): Promise<void> {
  const base = prefix.replace(/\//g, ":").replace(/:?$/, ":");
  const mount = storage.getMount(base);
  const relative = base.slice(mount.base.length);
  if (!mount.driver.clear) throw new Error(`storage driver ${mount.driver.name ?? "?"} cannot remove ${prefix}`);
  await mount.driver.clear(relative, {});
}
