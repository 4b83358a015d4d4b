// A JSON Schema as a strict validator reads it: AJV in strict mode (its default for unknown keywords, here for
// every rule), with the standard formats, as a client that validates what it is given may run it.
import { Ajv } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

const draft7 = addFormats.default(new Ajv({ strict: true, allErrors: true }));
const draft2020 = addFormats.default(new Ajv2020({ strict: true, allErrors: true }));

/** Why a strict validator refuses the schema; null when it compiles. Its `$schema` picks the dialect (draft-07 when none). */
export function strictRefusal(schema: Record<string, unknown>): string | null {
  const ajv = typeof schema.$schema === "string" && schema.$schema.includes("2020-12") ? draft2020 : draft7;
  try {
    ajv.compile(schema);
    return null;
  } catch (error) {
    return (error as Error).message;
  } finally {
    ajv.removeSchema(schema);
  }
}
