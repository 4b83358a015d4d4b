// JSON Schemas of a route and its MCP tool, converted once from its zod schemas: the query (the x402 Bazaar block of a
// paid HTTP route), the tool's input (tools/list and the Bazaar block of a paid tool) and the output `{data, meta}` (tools/list; the official SDK client validates results with it).
import { z } from "zod";
import { envelope } from "./envelope.ts";
import type { Route } from "./api.ts";

type JsonSchema = Record<string, unknown>;

const queries = new WeakMap<Route, JsonSchema>();
const inputs = new WeakMap<Route, JsonSchema>();
const outputs = new WeakMap<Route, JsonSchema>();

/** The route's query parameters as JSON Schema (the x402 Bazaar block of a paid HTTP route). */
export function queryInputSchema(route: Route): JsonSchema {
  let schema = queries.get(route);
  if (!schema) queries.set(route, (schema = jsonSchemaOf(route.query, "input")));
  return schema;
}

/**
 * The tool's arguments as JSON Schema (draft-07, as the MCP SDK writes it: its clients validate with AJV's default):
 * the route's query, with the tool's own default `limit` where it has one (`agent.limit`, issue 41), and no string
 * format but those Gemini's function declarations accept (hosts hand MCP tools to it; a date is held by its pattern).
 */
export function toolInputSchema(route: Route): JsonSchema {
  let schema = inputs.get(route);
  if (!schema) inputs.set(route, (schema = withoutFormats(withToolLimit(queryInputSchema(route), route.agent?.limit))));
  return schema;
}

/** The string formats Gemini's function declarations accept; any other is refused with a 400 for the whole request. */
export const TOOL_STRING_FORMATS: ReadonlySet<string> = new Set(["enum", "date-time"]);

function withoutFormats(schema: JsonSchema): JsonSchema {
  const properties = Object.entries(schema.properties as Record<string, JsonSchema>).map(([name, property]) => {
    if (typeof property.format !== "string" || TOOL_STRING_FORMATS.has(property.format)) return [name, property];
    const { format: _dropped, ...rest } = property;
    return [name, rest];
  });
  return { ...schema, properties: Object.fromEntries(properties) };
}

/** The arguments a tool stands in for when its caller gives none (its `limit`). */
export function toolDefaults(route: Route): Record<string, unknown> | undefined {
  return route.agent?.limit === undefined ? undefined : { limit: route.agent.limit };
}

function withToolLimit(schema: JsonSchema, limit: number | undefined): JsonSchema {
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  if (limit === undefined || !properties?.limit) return schema;
  // The route's own words may say what HTTP does without a limit (every row); the tool says its own default.
  const description = `${properties.limit.description ?? ""} The tool's default: ${limit}.`.trim();
  return { ...schema, properties: { ...properties, limit: { ...properties.limit, description, default: limit } } };
}

/** The tool's structured result (the route's envelope) as JSON Schema. */
export function toolOutputSchema(route: Route): JsonSchema {
  let schema = outputs.get(route);
  if (!schema) outputs.set(route, (schema = jsonSchemaOf(envelope(route.payload), "output")));
  return schema;
}

// Without `$schema`: AJV's default dialect reads it as is, and the Bazaar block nests it inside a 2020-12 schema.
export function jsonSchemaOf(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: "draft-7", io, unrepresentable: "any", override: standardKeywords }) as JsonSchema;
  return rest;
}

/**
 * Only JSON Schema's own keywords: zod copies every `.meta()` key into the schema, and two of ours are OpenAPI's
 * (`example`, said `examples` here) and zod-openapi's (`override`). A validator in strict mode (AJV's default)
 * refuses a schema with a keyword it does not know.
 */
function standardKeywords({ jsonSchema }: { jsonSchema: Record<string, unknown> }): void {
  delete jsonSchema.override;
  if ("example" in jsonSchema) {
    jsonSchema.examples = [jsonSchema.example];
    delete jsonSchema.example;
  }
}
