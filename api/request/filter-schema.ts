import type { JsonSchema } from './validate';

/**
 * The contract's alias rule, applied to the JSON Schema side of every endpoint at one place: each
 * filter property that takes one value also takes a list of it (the filter-object parser decides
 * how many values a filter takes and answers with a precise problem), and the filter object's own
 * `required` and closed property list are left to that parser, which knows the singular and plural
 * spellings. Both ajv and the OpenAPI document use the result, so the two cannot disagree.
 */
export function withFilterSpellings(schema: JsonSchema): JsonSchema {
  const props = schema.properties as Record<string, JsonSchema> | undefined;
  const filter = props?.filter;
  if (!filter || typeof filter.properties !== 'object') return schema;
  const { required: _required, additionalProperties: _closed, ...open } = filter;
  const properties: Record<string, JsonSchema> = {};
  for (const [name, p] of Object.entries(filter.properties as Record<string, JsonSchema>)) properties[name] = scalarOrList(p);
  return { ...schema, properties: { ...props, filter: { ...open, properties } } };
}

const SCALARS = new Set(['string', 'number', 'integer', 'boolean']);

function scalarOrList(p: JsonSchema): JsonSchema {
  const types = Array.isArray(p.type) ? (p.type as string[]) : typeof p.type === 'string' ? [p.type] : [];
  const scalars = types.filter((t) => SCALARS.has(t));
  if (!scalars.length || types.includes('array') || types.includes('object') || scalars.includes('boolean')) return p;
  const { type: _type, format, enum: values, pattern, minimum, exclusiveMinimum, maximum, description, ...rest } = p;
  const item: JsonSchema = { type: scalars.length === 1 ? scalars[0] : scalars };
  for (const [k, v] of Object.entries({ format, enum: values, pattern, minimum, exclusiveMinimum, maximum })) if (v !== undefined) item[k] = v;
  return { ...rest, type: [...types, 'array'], items: item, ...(description === undefined ? {} : { description }) };
}
