// The one way to open the store, shared by builder and gateway: a folder, `fs:PATH`, or `s3://bucket/prefix`.
// Secrets (AWS credentials) are read by the AWS SDK from the environment and never logged here.
import { createStorage, type Storage } from "unstorage";
import { z } from "zod";
import { fsDriver } from "./fs-driver.ts";
import { s3Driver } from "./s3-driver.ts";

/** Environment the S3 back end reads (DESIGN "Configuration"). */
export interface StorageEnv {
  S3_ENDPOINT?: string;
  S3_FORCE_PATH_STYLE?: string;
  AWS_REGION?: string;
}

/** The storage settings of a program's environment (its configuration passes them down). */
export function storageEnvOf(env: Record<string, string | undefined>): StorageEnv {
  return { S3_ENDPOINT: env.S3_ENDPOINT, S3_FORCE_PATH_STYLE: env.S3_FORCE_PATH_STYLE, AWS_REGION: env.AWS_REGION };
}

/** Opens the store a location names; throws a clear error for anything else (an http URL, an empty string). */
export function openStorage(location: string, env: StorageEnv = {}): Storage {
  return createStorage({ driver: describeLocation(location, env).driver });
}

/** What a location string means, for logs and errors: kind, and a display form without secrets. */
export function describeLocation(location: string, env: StorageEnv = {}) {
  const s3 = /^s3:\/\/([a-z0-9][a-z0-9.\-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(location);
  if (s3) {
    const endpoint = env.S3_ENDPOINT ? z.url().parse(env.S3_ENDPOINT, { error: () => "S3_ENDPOINT must be a URL" }) : undefined;
    const driver = s3Driver({
      bucket: s3[1]!,
      prefix: (s3[2] ?? "").replace(/\/+$/, ""),
      ...(endpoint ? { endpoint } : {}),
      forcePathStyle: /^(1|true|yes)$/i.test(env.S3_FORCE_PATH_STYLE ?? ""),
      ...(env.AWS_REGION ? { region: env.AWS_REGION } : {}),
    });
    return { kind: "s3" as const, display: location, driver };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(location)) {
    throw new Error(`unsupported storage location "${location}": use a folder, fs:PATH or s3://bucket/prefix`);
  }
  const folder = location.startsWith("fs:") ? location.slice(3) : location;
  if (!folder.trim()) throw new Error("empty storage location: use a folder, fs:PATH or s3://bucket/prefix");
  return { kind: "fs" as const, display: folder, driver: fsDriver({ base: folder }) };
}
