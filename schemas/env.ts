// Reading a program's environment against its zod schema, shared by the gateway's and the builder's configuration:
// empty values count as unset, and every bad variable is named in one message.
import type { z } from "zod";

/** The environment parsed by `schema`; throws `bad configuration: …` listing every bad variable. */
export function parseEnv<T extends z.ZodType>(schema: T, env: Record<string, string | undefined>): z.infer<T> {
  const parsed = schema.safeParse(Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== "")));
  if (!parsed.success) {
    throw new Error(`bad configuration: ${parsed.error.issues.map((i) => `${i.path.join(".")} ${i.message}`).join("; ")}`);
  }
  return parsed.data;
}
