// A first draft of a JSON Schema from sample values: the types seen for each property, and the
// properties every sample has as required. A starting point to edit, not a final schema.
type JsonSchema = Record<string, unknown>;

const MAX_DEPTH = 4;

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value; // string, boolean, object
}

export function inferSchema(samples: unknown[], depth = 0): JsonSchema {
  const types = new Set(samples.map(typeOf));
  // An integer seen beside a fraction is a number.
  if (types.has('integer') && types.has('number')) types.delete('integer');
  const schema: JsonSchema = {};
  const list = [...types].sort();
  if (list.length === 1) schema.type = list[0];
  else if (list.length > 1) schema.type = list;

  if (types.has('object') && depth < MAX_DEPTH) {
    const objects = samples.filter((s): s is Record<string, unknown> => typeOf(s) === 'object');
    const keys = [...new Set(objects.flatMap((o) => Object.keys(o)))].sort();
    const properties: Record<string, JsonSchema> = {};
    for (const key of keys) {
      properties[key] = inferSchema(objects.filter((o) => key in o).map((o) => o[key]), depth + 1);
    }
    schema.properties = properties;
    const required = keys.filter((key) => objects.every((o) => key in o));
    if (required.length > 0) schema.required = required;
  }
  if (types.has('array') && depth < MAX_DEPTH) {
    const items = samples.filter(Array.isArray).flat();
    if (items.length > 0) schema.items = inferSchema(items, depth + 1);
  }
  return schema;
}

/** The draft for an event name's properties: always an object schema. */
export function draftFromEvents(properties: unknown[]): JsonSchema {
  const objects = properties.map((p) => (p && typeof p === 'object' && !Array.isArray(p) ? p : {}));
  const schema = inferSchema(objects);
  return { type: 'object', ...schema, ...(schema.properties ? {} : { properties: {} }) };
}
