import Ajv2020, { ErrorObject, ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { Problem } from './problem';

/**
 * JSON Schema validation of request bodies (ajv, each schema compiled once at start-up). The same
 * schemas generate the OpenAPI document. Schemas check shape (types, ranges, which top-level
 * fields an endpoint accepts); meaning (names, enumerations, expressions, cursors) is checked by
 * the other parsers of the request layer, which share the FieldSet of the endpoint.
 *
 * The dialect is JSON Schema 2020-12, the one OpenAPI 3.1 uses, so the schemas go into the
 * OpenAPI document unchanged and mean there exactly what they mean here.
 */

export type JsonSchema = Record<string, unknown>;

const ajv = new Ajv2020({ allErrors: false, strict: true, allowUnionTypes: true });
addFormats(ajv, ['date-time', 'date']);

function fieldPath(e: ErrorObject): string {
  const parts = e.instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  let path = '';
  for (const p of parts) path += /^\d+$/.test(p) ? `[${p}]` : path ? `.${p}` : p;
  if (e.keyword === 'additionalProperties') {
    const extra = (e.params as { additionalProperty: string }).additionalProperty;
    return path ? `${path}.${extra}` : extra;
  }
  if (e.keyword === 'required') {
    const missing = (e.params as { missingProperty: string }).missingProperty;
    return path ? `${path}.${missing}` : missing;
  }
  return path || 'body';
}

function describe(e: ErrorObject): string {
  switch (e.keyword) {
    case 'additionalProperties':
      return 'is not accepted by this endpoint';
    case 'required':
      return 'is required';
    case 'type':
      return `must be ${(e.params as { type: string }).type}`;
    case 'enum':
      // The values themselves: an MCP client's model, like a person, can correct its call from them.
      return `must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
    default:
      return e.message ?? 'is invalid';
  }
}

export function compileSchema(schema: JsonSchema): (body: unknown) => void {
  const validate: ValidateFunction = ajv.compile(schema);
  return (body: unknown) => {
    if (validate(body)) return;
    const errors = (validate.errors ?? []).map((e) => ({ field: fieldPath(e), message: describe(e) }));
    const first = errors[0] ?? { field: 'body', message: 'is invalid' };
    throw new Problem('ValidationFailure', `${first.field}: ${first.message}`, { errors });
  };
}

/** Schema fragments shared by endpoint request schemas. */
export const fragments = {
  timeRange: {
    type: 'object',
    description: 'Custom window [startTime, endTime): ISO 8601 date-times with a zone; startTime strictly before endTime.',
    properties: { startTime: { type: 'string', format: 'date-time' }, endTime: { type: 'string', format: 'date-time' } },
  },
  size: (max: number) => ({ type: 'integer', minimum: 1, maximum: max, default: 50, description: `Rows per page, 1-${max}.` }),
  searchAfter: {
    type: ['array', 'null'],
    items: { type: 'string' },
    description: 'The nextSearchAfter of the previous page, unchanged; null or absent for the first page.',
  },
  projectionList: { type: 'array', items: { type: 'string' }, maxItems: 100 },
  /** The cursor of a table-shaped response: two strings, absent on the last page. */
  nextSearchAfter: (description: string) => ({ type: ['array', 'null'], items: { type: 'string' }, minItems: 2, maxItems: 2, description }),
  filter: { type: 'object', description: 'Convenience filters; keys ignore case and separators, singular and plural alike.' },
  /** A filter taking one value or a list (the request layer accepts both everywhere). */
  stringOrList: (description: string, items: JsonSchema = { type: 'string' }) => ({ type: ['string', 'array'], items, description }),
  /** A {min, max} range filter; the request layer checks the bounds' types and order. */
  range: (description: string) => ({
    type: 'object',
    additionalProperties: false,
    properties: { min: { type: ['number', 'null'] }, max: { type: ['number', 'null'] } },
    description: `${description} {min, max}, inclusive; a null or absent bound is open.`,
  }),
  filterExpression: { type: ['object', 'null'], description: 'Boolean tree of {conjunction, filters} groups and {field, operation, value|values} terms.' },
};
