// Removing what a killed writer left behind: the folder driver's temporary files (written before an atomic rename),
// the S3 driver's conditional-write probes. Only those older than the caller's bound: a live writer may be renaming one.
import type { Driver, Storage } from "unstorage";

/** A driver whose writes leave temporaries when the writing process is killed mid-write. */
export interface TemporariesDriver extends Driver {
  /** Removes its temporaries last modified before `before`, wherever they are in the store; returns how many. */
  removeTemporaries(before: Date): Promise<number>;
}

/**
 * Removes the temporaries of the store's driver last modified before `before` (issue 39: a killed build's `.tmp`
 * files were never used nor removed); 0 for a driver whose writes leave none (unstorage's memory driver).
 */
export async function removeTemporaries(storage: Storage, before: Date): Promise<number> {
  const driver = storage.getMount("").driver as Partial<TemporariesDriver>;
  return typeof driver.removeTemporaries === "function" ? driver.removeTemporaries(before) : 0;
}
