// Reading and writing JSON documents in the store, validated at the edge with a zod schema.
import type { Storage } from "unstorage";
import type { z } from "zod";
import { createIfAbsent } from "./claim.ts";

/** Reads a key as JSON and validates it; null when the key does not exist. Throws on bad JSON or shape. */
export async function readJson<T extends z.ZodType>(storage: Storage, key: string, schema: T): Promise<z.infer<T> | null> {
  const text = await readText(storage, key);
  if (text === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw new Error(`${key}: not valid JSON (${text.length} bytes)`, { cause });
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new Error(`${key}: ${parsed.error.issues.map((i) => `${i.path.join(".")} ${i.message}`).slice(0, 3).join("; ")}`);
  return parsed.data;
}

/** Reads a key's bytes as UTF-8 text; null when missing. */
export async function readText(storage: Storage, key: string): Promise<string | null> {
  const raw = await storage.getItemRaw(key);
  if (raw === null || raw === undefined) return null;
  if (typeof raw === "string") return raw;
  return new TextDecoder().decode(raw as Uint8Array);
}

/** Validates a value against its schema, then writes it as compact JSON; returns the text written. */
export async function writeJson<T extends z.ZodType>(storage: Storage, key: string, schema: T, value: z.input<T>): Promise<string> {
  const text = encodeJson(schema, value, key);
  await storage.setItemRaw(key, new TextEncoder().encode(text));
  return text;
}

/** Validates a value, then writes it only if the key is absent (storage/claim.ts); true when this call created it. */
export function createJsonIfAbsent<T extends z.ZodType>(storage: Storage, key: string, schema: T, value: z.input<T>): Promise<boolean> {
  return createIfAbsent(storage, key, new TextEncoder().encode(encodeJson(schema, value, key)));
}

/**
 * Validates a value against its schema and serialises it as compact JSON; `what` names it in the error. What is
 * written is the validated value, keys in the schema's order, so that equal content is equal bytes however the value
 * was made (a Form 4 parsed now and one read back from the cache).
 */
export function encodeJson<T extends z.ZodType>(schema: T, value: z.input<T>, what: string): string {
  return JSON.stringify(validated(schema, value, what));
}

/** The value as its schema reads it (keys in the schema's order); throws, naming `what`, when it does not fit. */
export function validated<T extends z.ZodType>(schema: T, value: z.input<T>, what: string): z.output<T> {
  const checked = schema.safeParse(value);
  if (!checked.success) {
    throw new Error(`refusing to write ${what}: ${checked.error.issues.map((i) => `${i.path.join(".")} ${i.message}`).slice(0, 3).join("; ")}`);
  }
  return checked.data;
}
