// The gateway's view of the store: the published snapshot (noticed without a restart by polling current.json),
// the follower's last report (its lease), and documents parsed once into rows and per-row JSON, kept in a
// byte-budgeted LRU by storage key. A new manifest names an unchanged document by the key it had, so what is
// cached stays cached across publishes. Storage trouble never drops what is loaded: the last snapshot keeps being served.
import type { Storage } from "unstorage";
import { CurrentPointer, FollowerStatus, Manifest, type DocumentKind, type ManifestTicker } from "../../schemas/snapshot.ts";
import type { DocumentMeta } from "../../schemas/document-meta.ts";
import { readJson, readText } from "../../storage/json.ts";
import { CURRENT_KEY, documentKeyOf } from "../../storage/layout.ts";
import { isLive, readLease, type LeaseRecord } from "../../storage/lease.ts";
import { PreparedDocument } from "./document.ts";
import { ApiError } from "../http/errors.ts";
import { ByteLru } from "../http/lru.ts";
import type { EventLog } from "../../logging/log.ts";

/** A loaded snapshot: its pointer and manifest, and its documents' storage keys as they are first asked for. */
export interface LoadedSnapshot {
  pointer: CurrentPointer;
  manifest: Manifest;
  /** Per ticker and kind; made once, so the document cache is looked up with a string whose hash V8 already holds. */
  documentKeys: Map<string, Partial<Record<DocumentKind, string>>>;
}

/** The writer lease as last read: who holds it, and the follower's report when the follower does. */
export interface WriterView {
  record: LeaseRecord | null;
  /** The follower's status from its lease (the last one it wrote, even once it stopped). */
  status: FollowerStatus | null;
  live: boolean;
}

/** The lease publishers take (build/publish/publish.ts WRITER_LEASE). */
const WRITER_LEASE = "writer";


/** Watches current.json and serves the snapshot it names. */
export class SnapshotStore {
  readonly #storage: Storage;
  readonly #cache: ByteLru<PreparedDocument>;
  readonly #log: EventLog;
  #loaded: LoadedSnapshot | null = null;
  #writer: WriterView = { record: null, status: null, live: false };
  #loading: Promise<LoadedSnapshot | null> | null = null;
  #next: Promise<LoadedSnapshot | null> | null = null;
  #timer: NodeJS.Timeout | null = null;
  #hits = 0;
  #misses = 0;

  constructor(storage: Storage, options: { cacheBytes?: number; log?: EventLog } = {}) {
    this.#storage = storage;
    this.#cache = new ByteLru(options.cacheBytes ?? 256 * 1024 * 1024);
    this.#log = options.log ?? (() => {});
  }

  /** Starts polling current.json every `ms`; a new pointer switches the served snapshot. */
  watch(ms: number): void {
    this.#timer ??= setInterval(() => void this.refresh().catch(() => {}), ms);
    this.#timer.unref();
  }

  /** Stops polling. */
  close(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }

  /** The snapshot being served; loads it on first use. 503 when none can be read and none is held. */
  async current(): Promise<LoadedSnapshot> {
    const loaded = this.#loaded ?? (await this.refresh().catch(() => null));
    if (loaded) return loaded;
    throw new ApiError("storage_unavailable", "No published snapshot could be read from storage.", {
      hint: "The data store is unreachable or holds no build yet; retry shortly. Nothing was charged.",
      headers: { "retry-after": "5" },
    });
  }

  /** The snapshot held in memory, without touching storage (null before the first load). */
  get held(): LoadedSnapshot | null {
    return this.#loaded;
  }

  /** The writer lease as of the last refresh. */
  get writer(): WriterView {
    return this.#writer;
  }

  /**
   * Re-reads current.json (and the writer lease) and loads a new manifest when it changed; storage errors keep the
   * held snapshot. A reload already in flight may have read before this call: one more, after it, answers every
   * caller that asked meanwhile.
   */
  refresh(): Promise<LoadedSnapshot | null> {
    if (this.#loading) return (this.#next ??= this.#loading.catch(() => null).then(() => ((this.#next = null), this.refresh())));
    this.#loading = this.#reload().finally(() => (this.#loading = null));
    return this.#loading;
  }

  async #reload(): Promise<LoadedSnapshot | null> {
    await this.#readWriter();
    try {
      const pointer = await readJson(this.#storage, CURRENT_KEY, CurrentPointer);
      if (!pointer) return this.#loaded;
      if (pointer.build_id === this.#loaded?.pointer.build_id) return this.#loaded;
      const manifest = await readJson(this.#storage, pointer.manifest, Manifest);
      if (!manifest) throw new Error(`${pointer.manifest} is missing`);
      const previous = this.#loaded?.pointer.build_id ?? null;
      this.#loaded = { pointer, manifest, documentKeys: new Map() };
      this.#log("info", "snapshot_loaded", { build_id: pointer.build_id, previous, tickers: Object.keys(manifest.tickers).length });
      return this.#loaded;
    } catch (error) {
      this.#log("warn", "snapshot_refresh_failed", { error: (error as Error).message, serving: this.#loaded?.pointer.build_id ?? null });
      if (this.#loaded) return this.#loaded;
      throw error;
    }
  }

  /** The writer lease and, when the follower wrote it, its status; a read failure keeps what was known. */
  async #readWriter(): Promise<void> {
    try {
      const record = await readLease(this.#storage, WRITER_LEASE);
      const status = record?.role === "follow" ? FollowerStatus.safeParse(record.status) : null;
      this.#writer = {
        record,
        status: status?.success ? status.data : record?.role === "follow" ? null : this.#writer.status,
        live: record !== null && isLive(record, Date.now()),
      };
    } catch (error) {
      this.#log("warn", "writer_lease_unreadable", { error: (error as Error).message });
    }
  }

  /** A ticker's manifest entry in a snapshot. */
  ticker(snapshot: LoadedSnapshot, ticker: string): ManifestTicker | undefined {
    return Object.hasOwn(snapshot.manifest.tickers, ticker) ? snapshot.manifest.tickers[ticker] : undefined;
  }

  /** A covered ticker's document when memory holds it (no await, counted a hit); undefined otherwise. */
  cached(snapshot: LoadedSnapshot, ticker: string, kind: DocumentKind): PreparedDocument | undefined {
    const doc = this.#cache.get(keyOf(snapshot, ticker, kind));
    if (doc) this.#hits++;
    return doc;
  }

  /** The document cache so far (issue 42's metrics): answers from memory, documents read from storage, bytes held. */
  get cacheStats(): { hits: number; misses: number; bytes: number } {
    return { hits: this.#hits, misses: this.#misses, bytes: this.#cache.bytes };
  }

  /** A covered ticker's document, from memory (hit) or storage (miss); 503 when storage cannot give it. */
  async document(snapshot: LoadedSnapshot, ticker: string, kind: DocumentKind): Promise<{ doc: PreparedDocument; cache: "hit" | "miss" }> {
    const held = this.cached(snapshot, ticker, kind);
    if (held) return { doc: held, cache: "hit" };
    const key = keyOf(snapshot, ticker, kind);
    this.#misses++;
    let text: string | null;
    try {
      text = await readText(this.#storage, key);
    } catch (error) {
      this.#log("error", "document_read_failed", { key, error: (error as Error).message });
      throw new ApiError("storage_unavailable", "The document could not be read from storage.", { headers: { "retry-after": "5" } });
    }
    if (text === null) {
      // The manifest says covered but the document is gone (a pruned snapshot): look for a newer pointer next time.
      void this.refresh().catch(() => {});
      throw new ApiError("storage_unavailable", "The document is not in storage.", { headers: { "retry-after": "5" } });
    }
    // Trusted inside: the builder validated this document against its schema when it wrote it (STYLE habit 4).
    const parsed = JSON.parse(text) as { data: Record<string, unknown>[]; meta: DocumentMeta; history?: string };
    const doc = new PreparedDocument(parsed);
    this.#cache.set(key, doc, text.length * 3);
    return { doc, cache: "miss" };
  }
}

/**
 * A document's storage key as the manifest names it, also its cache key (the same for an unchanged document in every
 * later snapshot); only covered tickers get here, so the map is bounded by the manifest.
 */
function keyOf(snapshot: LoadedSnapshot, ticker: string, kind: DocumentKind): string {
  let keys = snapshot.documentKeys.get(ticker);
  if (!keys) snapshot.documentKeys.set(ticker, (keys = {}));
  return (keys[kind] ??= documentKeyOf(snapshot.manifest, ticker, kind));
}
