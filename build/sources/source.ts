// The one interface every EDGAR source implements (live, http mirror, dir mirror, bulk archives), and its errors.
// Sources fetch and never parse: they return text for an EDGAR path or a named error.

/** Counters a source keeps, for logs, the manifest and the build summary. */
export interface SourceStats {
  requests: number;
  retries: number;
  bytes: number;
  throttled: number;
}

/** Reads files in EDGAR's URL layout. */
export interface Source {
  /** How the source is named in logs and the manifest (`live`, `http://127.0.0.1:4000`, `dir:../shared/edgar`). */
  readonly name: string;
  readonly stats: SourceStats;
  /** The text at an EDGAR path; SourceNotFoundError when EDGAR has no such file, SourceError when it could not be read. */
  getText(path: string): Promise<string>;
  /** Where a path came from, for a document's `meta.source_api`. */
  describe(path: string): string;
  /** Releases what the source holds open (the bulk source's archive files); absent when there is nothing to release. */
  close?(): Promise<void>;
}

/** The file does not exist at the source (HTTP 404, or no such file in a folder). */
export class SourceNotFoundError extends Error {
  override readonly name = "SourceNotFoundError";
  readonly path: string;
  constructor(path: string) {
    super(`${path}: not found at the source`);
    this.path = path;
  }
}

/** The text at a path, or null where the source has no such file (any other failure is thrown). */
export function textIfFound(source: Source, path: string): Promise<string | null> {
  return source.getText(path).catch((error: unknown) => {
    if (error instanceof SourceNotFoundError) return null;
    throw error;
  });
}

/** The file could not be read after every retry (network, 5xx, throttling, timeout). */
export class SourceError extends Error {
  override readonly name = "SourceError";
  readonly path: string;
  constructor(path: string, message: string, options?: { cause?: unknown }) {
    super(`${path}: ${message}`, options);
    this.path = path;
  }
}

/** Fresh counters. */
export function newStats(): SourceStats {
  return { requests: 0, retries: 0, bytes: 0, throttled: 0 };
}
