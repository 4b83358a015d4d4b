// Query validation for every route (400 invalid_parameter): the route's zod schema, plus the rules a schema
// cannot see in a parsed object — no repeated parameters, no unknown ones.
import type { H3Event } from "h3";
import type { z } from "zod";
import { ApiError, printable } from "../http/errors.ts";

/** Valid query strings remembered per route: clients repeat the same few queries, so zod runs once for each. */
const MEMO_SIZE = 2048;

/** A route's query reader: the validated query, or a 400 naming the parameter and what is wrong with it. */
export function queryReader<T extends z.ZodObject>(schema: T): (event: H3Event) => z.infer<T> {
  const memo = new Map<string, z.infer<T>>();
  return (event) => {
    const search = event.url.search;
    const known = memo.get(search);
    if (known) return known;
    const parsed = parseQuery(event.url.searchParams, schema);
    if (memo.size >= MEMO_SIZE) memo.delete(memo.keys().next().value!);
    memo.set(search, parsed);
    return parsed;
  };
}

/**
 * A tool's argument reader: the query's rules over named arguments (MCP), valid argument sets remembered likewise;
 * `defaults` stand for arguments not given (a tool's own bounds: schemas/api.ts `agent.limit`).
 */
export function argumentReader<T extends z.ZodObject>(schema: T, defaults?: Record<string, unknown>): (raw: Record<string, unknown>) => z.infer<T> {
  const memo = new Map<string, z.infer<T>>();
  return (given) => {
    const raw = defaults ? { ...defaults, ...given } : given;
    // Every argument is one value, as a query parameter is: an object or array is refused before anything walks it
    // (arguments nested 10,000 deep overflowed the stack here; issue 39).
    for (const name of Object.keys(raw)) {
      requireKnown(name, schema);
      requireScalar(name, raw[name]);
    }
    const text = JSON.stringify(raw);
    const known = memo.get(text);
    if (known) return known;
    const parsed = validate(raw, schema);
    if (memo.size >= MEMO_SIZE) memo.delete(memo.keys().next().value!);
    memo.set(text, parsed);
    return parsed;
  };
}

function parseQuery<T extends z.ZodObject>(params: URLSearchParams, schema: T): z.infer<T> {
  const raw: Record<string, string> = {};
  for (const name of new Set(params.keys())) {
    requireKnown(name, schema);
    const values = params.getAll(name);
    if (values.length > 1) throw invalid(name, `parameter "${name}" is given ${values.length} times`, "Give each parameter once.");
    raw[name] = values[0]!;
  }
  return validate(raw, schema);
}

function requireScalar(name: string, value: unknown): void {
  if (value === null || typeof value !== "object") return;
  throw invalid(name, `argument "${printable(name)}" must be a single value, not ${Array.isArray(value) ? "an array" : "an object"}`);
}

function requireKnown(name: string, schema: z.ZodObject): void {
  if (Object.hasOwn(schema.shape, name)) return;
  const allowed = Object.keys(schema.shape);
  throw invalid(name, `unknown parameter "${printable(name)}"`, allowed.length ? `Allowed: ${allowed.join(", ")}.` : "This endpoint takes no parameters.");
}

function validate<T extends z.ZodObject>(raw: Record<string, unknown>, schema: T): z.infer<T> {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const name = String(issue.path[0] ?? "query");
  const message = issue.code === "invalid_type" && raw[name] === undefined ? `parameter "${name}" is required` : `${name}: ${issue.message}`;
  throw invalid(name, message);
}

function invalid(name: string, message: string, hint?: string): ApiError {
  return new ApiError("invalid_parameter", message, hint ? { hint } : { hint: `Fix "${printable(name)}" and retry; /openapi.json lists every parameter.` });
}
