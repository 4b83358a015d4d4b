// The one way to open the store, shared by builder and gateway: a folder, `fs:PATH`, or `s3://bucket/prefix`.
// Its variables are one schema that every program's configuration validates; AWS credentials stay with the AWS SDK.
import { createStorage, type Storage } from "unstorage";
import { z } from "zod";
import { fsDriver } from "./fs-driver.ts";
import { s3Driver } from "./s3-driver.ts";

const FORMS = "a folder, fs:PATH or s3://bucket/prefix";
/** S3's bucket naming rules: 3–63 lowercase letters, digits, dots and hyphens, a letter or digit at each end. */
const S3_LOCATION = /^s3:\/\/([a-z0-9][a-z0-9.\-]{1,61}[a-z0-9])(?:\/(.*))?$/;

/**
 * The store's variables, one schema for every program that opens it (the gateway, the builder, the keys CLI): each
 * configuration parses them with its own, so a bad one is named at start beside every other bad variable.
 */
export const StorageVariables = z.object({
  DATA_URL: z
    .string()
    .superRefine((location, ctx) => {
      const where = readLocation(location);
      if ("problem" in where) ctx.addIssue({ code: "custom", message: where.problem });
    })
    .default("data"),
  S3_ENDPOINT: z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }).optional(),
  S3_FORCE_PATH_STYLE: z.enum(["true", "false", "1", "0"], { error: "must be true or false (or 1 or 0)" }).optional(),
  AWS_REGION: z.string().regex(/^[a-z0-9-]+$/, "must be a region name such as us-east-1 (auto for R2)").optional(),
});

/** The S3 settings as the environment spells them, validated by the program's configuration and handed down. */
export interface StorageEnv {
  S3_ENDPOINT?: string;
  S3_FORCE_PATH_STYLE?: string;
  AWS_REGION?: string;
}

/** The S3 settings of a configuration's parsed variables (what it hands down beside the location). */
export function storageEnvOf(parsed: z.infer<typeof StorageVariables>): StorageEnv {
  return { S3_ENDPOINT: parsed.S3_ENDPOINT, S3_FORCE_PATH_STYLE: parsed.S3_FORCE_PATH_STYLE, AWS_REGION: parsed.AWS_REGION };
}

/** Opens the store a location names; throws a clear error for anything else (an http URL, an empty string). */
export function openStorage(location: string, s3: StorageEnv = {}): Storage {
  return createStorage({ driver: describeLocation(location, s3).driver });
}

/** What a location string means, for logs and errors: kind, and a display form without secrets. */
export function describeLocation(location: string, s3: StorageEnv = {}) {
  const where = readLocation(location);
  if ("problem" in where) throw new Error(`storage location ${where.problem}`);
  if (where.kind === "fs") return { kind: "fs" as const, display: where.folder, driver: fsDriver({ base: where.folder }) };
  const driver = s3Driver({
    bucket: where.bucket,
    prefix: where.prefix,
    ...(s3.S3_ENDPOINT ? { endpoint: s3.S3_ENDPOINT } : {}),
    // The schema admits true/false and 1/0 only, so anything else never reaches here as a silent false.
    forcePathStyle: s3.S3_FORCE_PATH_STYLE === "true" || s3.S3_FORCE_PATH_STYLE === "1",
    ...(s3.AWS_REGION ? { region: s3.AWS_REGION } : {}),
  });
  return { kind: "s3" as const, display: location, driver };
}

/** A location's parts, or why it names no store (worded to follow a variable's or flag's name). */
function readLocation(location: string): { kind: "s3"; bucket: string; prefix: string } | { kind: "fs"; folder: string } | { problem: string } {
  const s3 = S3_LOCATION.exec(location);
  if (s3) return { kind: "s3", bucket: s3[1]!, prefix: (s3[2] ?? "").replace(/\/+$/, "") };
  if (location.startsWith("s3://")) return { problem: `must name an S3 bucket (3–63 lowercase letters, digits, dots and hyphens), not "${location}"` };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(location)) return { problem: `must be ${FORMS}, not "${location}"` };
  const folder = location.startsWith("fs:") ? location.slice(3) : location;
  if (!folder.trim()) return { problem: `must name a folder: use ${FORMS}, not "${location}"` };
  return { kind: "fs", folder };
}
