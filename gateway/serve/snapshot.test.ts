import type { Storage } from "unstorage";
import { afterAll, beforeAll, expect, it } from "vitest";
import { CurrentPointer } from "../../schemas/snapshot.ts";
import { readJson, writeJson } from "../../storage/json.ts";
import { CURRENT_KEY } from "../../storage/layout.ts";
import { openStorage } from "../../storage/open.ts";
import { describeEdgar } from "../../test/_edgar.ts";
import { buildTestData } from "../../test/_gateway.ts";
import { removeDir } from "../../test/_s3.ts";
import { SnapshotStore } from "./snapshot.ts";

// The snapshot store's refresh is a promise to read the store after it was asked: a caller joining a reload already
// in flight (the poll timer's, say) must not be answered with what that reload read before the call.

describeEdgar("the snapshot store", () => {
  let data: { dataDir: string; mirror: string };
  beforeAll(async () => {
    data = await buildTestData();
  });
  afterAll(() => {
    if (data) [data.dataDir, data.mirror].forEach(removeDir);
  });

  it("a refresh asked while a reload is in flight reads the store after it was asked", async () => {
    const storage = openStorage(data.dataDir);
    // current.json as read, handed back only once the gate opens: a reload that read before the change below.
    let gate: Promise<void> | null = null;
    let open = () => {};
    const gated = new Proxy(storage, {
      get(target, name) {
        if (name !== "getItemRaw") return Reflect.get(target, name);
        return async (key: string) => {
          const value = await target.getItemRaw(key);
          if (key === CURRENT_KEY && gate) await gate;
          return value;
        };
      },
    }) as Storage;
    const store = new SnapshotStore(gated);
    const first = (await store.refresh())!.pointer;

    gate = new Promise((resolve) => (open = resolve));
    const inFlight = store.refresh();
    await new Promise((resolve) => setTimeout(resolve, 50)); // the in-flight reload has read current.json by now
    const next: CurrentPointer = { ...first, build_id: `${first.build_id}-next` };
    await writeJson(storage, CURRENT_KEY, CurrentPointer, next);
    const asked = store.refresh();
    gate = null;
    open();

    expect((await inFlight)!.pointer.build_id).toBe(first.build_id);
    expect((await asked)!.pointer.build_id).toBe(next.build_id);
    expect(store.held!.pointer).toEqual(await readJson(storage, CURRENT_KEY, CurrentPointer));
  });
});
