// unstorage driver over S3-compatible object storage (AWS S3, R2, MinIO, s3rver) with @aws-sdk/client-s3.
// Each PUT is atomic per object, which is all publishing needs (current.json is one object, written last);
// create-if-absent is a conditional PUT (`If-None-Match: *`), which S3 decides atomically. Its only temporaries are the
// probes of conditional writes, which a writer killed mid-probe leaves.
import { randomUUID } from "node:crypto";
import {
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from "@aws-sdk/client-s3";
import { defineDriver } from "unstorage";

const DRIVER_NAME = "s3";
/** S3 deletes at most 1,000 keys per DeleteObjects call. */
const MAX_BULK_DELETE = 1000;
/** Where the conditional-write probes are written (a key no caller uses: keys of the store are lowercase words). */
export const PROBE_FOLDER = ".conditional-write-probe";
/** Tries of a conditional PUT that S3 answers 409 ConditionalRequestConflict (another one in flight: "retry"). */
const CONDITIONAL_TRIES = 5;

/** Sends of one call whose connection was reset (each send has the SDK's own tries within its retry quota). */
const RESET_SENDS = 3;

/** Options of the S3 driver; credentials come from the standard AWS chain (AWS_ACCESS_KEY_ID, …). */
export interface S3DriverOptions {
  bucket: string;
  /** Key prefix inside the bucket, without a trailing slash ("" for the bucket root). */
  prefix: string;
  /** Custom endpoint for S3-compatible stores, e.g. http://127.0.0.1:4568 (s3rver) or an R2 URL. */
  endpoint?: string;
  /** Path-style addressing (bucket in the path), needed by s3rver and MinIO. */
  forcePathStyle?: boolean;
  region?: string;
}

/** A bucket (and prefix) as an unstorage driver. */
export const s3Driver = defineDriver((opts: S3DriverOptions) => {
  const client = new S3Client({
    region: opts.region ?? "us-east-1",
    ...(opts.endpoint ? { endpoint: opts.endpoint } : {}),
    forcePathStyle: opts.forcePathStyle ?? false,
    maxAttempts: 3,
  });
  // S3 closes idle connections; a builder busy deriving for longer has not read those closes, so its next burst of
  // calls meets a reset on each pooled one, and the SDK's retry quota (500, 14 a reset) runs out within one burst of
  // its 50 connections. A reset is sent again here, on a new connection, outside that quota.
  client.middlewareStack.add(
    (next) => async (args) => {
      for (let sends = 1; ; sends++) {
        try {
          return await next(args);
        } catch (error) {
          if (!isReset(error) || sends === RESET_SENDS) throw error;
        }
      }
    },
    { step: "initialize", name: "sendAgainOnReset" },
  );
  const prefix = opts.prefix ? `${opts.prefix.replace(/\/+$/, "")}/` : "";
  const objectKey = (key: string) => prefix + key.replace(/:/g, "/");
  const Bucket = opts.bucket;

  async function get(key: string): Promise<Uint8Array | null> {
    try {
      const out = await client.send(new GetObjectCommand({ Bucket, Key: objectKey(key) }));
      return (await out.Body?.transformToByteArray()) ?? new Uint8Array();
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  /** The objects under a key base: their object keys and when each was last written. */
  async function listObjects(keyBase: string): Promise<{ Key: string; LastModified?: Date }[]> {
    const objects: { Key: string; LastModified?: Date }[] = [];
    let token: string | undefined;
    do {
      const out = await client.send(
        new ListObjectsV2Command({ Bucket, Prefix: objectKey(keyBase), ContinuationToken: token }),
      );
      for (const o of out.Contents ?? []) if (o.Key) objects.push({ Key: o.Key, ...(o.LastModified ? { LastModified: o.LastModified } : {}) });
      token = out.IsTruncated ? out.NextContinuationToken : undefined;
    } while (token);
    return objects;
  }

  async function list(keyBase: string): Promise<string[]> {
    return (await listObjects(keyBase)).map((o) => o.Key.slice(prefix.length).replace(/\//g, ":"));
  }

  let probed: Promise<void> | null = null;

  return {
    name: DRIVER_NAME,
    options: opts,
    async hasItem(key: string) {
      try {
        await client.send(new HeadObjectCommand({ Bucket, Key: objectKey(key) }));
        return true;
      } catch (error) {
        if (isMissing(error)) return false;
        throw error;
      }
    },
    async getItem(key: string) {
      const bytes = await get(key);
      return bytes === null ? null : new TextDecoder().decode(bytes);
    },
    getItemRaw: get,
    async setItem(key: string, value: string) {
      await client.send(new PutObjectCommand({ Bucket, Key: objectKey(key), Body: value, ContentType: contentType(key) }));
    },
    async setItemRaw(key: string, value: Uint8Array) {
      await client.send(new PutObjectCommand({ Bucket, Key: objectKey(key), Body: value, ContentType: contentType(key) }));
    },
    async removeItem(key: string) {
      await removeKeys([objectKey(key)]);
    },
    async createIfAbsent(key: string, value: Uint8Array) {
      await conditionalWrites();
      return putIfAbsent(objectKey(key), value);
    },
    getKeys: list,
    async clear(keyBase: string) {
      const keys = await list(keyBase);
      await removeKeys(keys.map(objectKey));
    },
    /** A PUT is whole or absent, so the only temporaries are probes a killed writer left (conditionalWrites). */
    async removeTemporaries(before: Date) {
      const stale = (await listObjects(`${PROBE_FOLDER}:`)).filter((o) => o.LastModified && o.LastModified < before).map((o) => o.Key);
      await removeKeys(stale);
      return stale.length;
    },
    dispose() {
      client.destroy();
    },
  };

  async function putIfAbsent(Key: string, Body: Uint8Array | string): Promise<boolean> {
    for (let tries = 1; ; tries++) {
      try {
        await client.send(new PutObjectCommand({ Bucket, Key, Body, ContentType: contentType(Key), IfNoneMatch: "*" }));
        return true;
      } catch (error) {
        const status = error instanceof S3ServiceException ? error.$metadata.httpStatusCode : undefined;
        if (status === 412) return false;
        if (status !== 409 || tries === CONDITIONAL_TRIES) throw error;
      }
    }
  }

  /**
   * Once per driver: a store that ignores `If-None-Match` (s3rver does) would let two writers both "create" a key,
   * so that is found out with a probe object and refused loudly, never silently.
   */
  function conditionalWrites(): Promise<void> {
    probed ??= (async () => {
      const probe = objectKey(`${PROBE_FOLDER}:${randomUUID()}`);
      try {
        if (!(await putIfAbsent(probe, "1")) || (await putIfAbsent(probe, "2"))) {
          throw new Error(`[${DRIVER_NAME}] ${opts.endpoint ?? "the S3 endpoint"} ignores If-None-Match: * on PutObject: a store with conditional writes (AWS S3, R2) is needed`);
        }
      } finally {
        await removeKeys([probe]).catch(() => {});
      }
    })().catch((error: unknown) => {
      probed = null;
      throw error;
    });
    return probed;
  }

  async function removeKeys(keys: string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += MAX_BULK_DELETE) {
      const Objects = keys.slice(i, i + MAX_BULK_DELETE).map((Key) => ({ Key }));
      await client.send(new DeleteObjectsCommand({ Bucket, Delete: { Objects, Quiet: true } }));
    }
  }
});

function isMissing(error: unknown): boolean {
  return error instanceof S3ServiceException && (error.name === "NoSuchKey" || error.name === "NotFound" || error.$metadata.httpStatusCode === 404);
}

/** A connection closed under the call (what a pooled connection the server had closed answers). */
function isReset(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "ECONNRESET" || code === "EPIPE";
}

function contentType(key: string): string {
  return key.endsWith(".json") ? "application/json" : key.endsWith(".html") ? "text/html; charset=utf-8" : "application/octet-stream";
}
