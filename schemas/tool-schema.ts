// JSON Schemas of a route's MCP tool, converted once from its zod schemas: the input (tools/list and the x402 Bazaar
// block of a paid tool) and the output `{data, meta}` (tools/list; the official SDK client validates results with it).
import { z } from "zod";
import { envelope } from "./envelope.ts";
import type { Route } from "./api.ts";

type JsonSchema = Record<string, unknown>;

const inputs = new WeakMap<Route, JsonSchema>();
const outputs = new WeakMap<Route, JsonSchema>();

/** The tool's arguments as JSON Schema (draft-07, as the MCP SDK writes it: its clients validate with AJV's default). */
export function toolInputSchema(route: Route): JsonSchema {
  let schema = inputs.get(route);
  if (!schema) inputs.set(route, (schema = jsonSchemaOf(route.query, "input")));
  return schema;
}

/** The tool's structured result (the route's envelope) as JSON Schema. */
export function toolOutputSchema(route: Route): JsonSchema {
  let schema = outputs.get(route);
  if (!schema) outputs.set(route, (schema = jsonSchemaOf(envelope(route.payload), "output")));
  return schema;
}

// Without `$schema`: AJV's default dialect reads it as is, and the Bazaar block nests it inside a 2020-12 schema.
export function jsonSchemaOf(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: "draft-7", io, unrepresentable: "any" }) as JsonSchema;
  return rest;
}
