import type { EndpointDef } from '../request/endpoint';
import { PERIOD_LONG_NAMES, PERIOD_NAMES } from '../request/aggregation/period';
import { withFilterSpellings } from '../request/filter-schema';
import { normalizeName } from '../request/names';
import type { JsonSchema } from '../request/validate';

/**
 * The MCP tools, derived from the endpoints (vendor notes section 5): one tool per endpoint,
 * `mdq_get_<name>` (the path after /tool/, with underscores), plus `mdq_ping`. A tool's input
 * schema is its endpoint's request schema with flat arguments: the filter object's members are
 * hoisted to the top level (`tickers`, `premiumRange`), `sort` becomes `sortField` and
 * `sortDirection`, and `aggregationPeriod` is the enum of the long names (`ONE_HOUR`), which the
 * REST request layer accepts as aliases. Everything else is the request schema's own, so a new
 * endpoint gets its tool with nothing to add here.
 */

export const MCP_PATH = '/mcp';
export const TOOL_PREFIX = 'mdq_';
export const PING_TOOL = `${TOOL_PREFIX}ping`;

export interface Tool {
  name: string;
  description: string;
  inputSchema: JsonSchema & { type: 'object' };
  def: EndpointDef;
  /** The REST body of a tool call's arguments. */
  toBody(args: Record<string, unknown>): Record<string, unknown>;
  /** The argument a REST field path names, for error messages in the tool's own terms ('filter.tickers' -> 'tickers'). */
  argumentOf(field: string): string;
}

/** 'options/tool/order-flow/consolidated' -> 'mdq_get_order_flow_consolidated'. */
export function toolName(def: EndpointDef): string {
  const tail = def.path.includes('/tool/') ? def.path.split('/tool/')[1] : def.path.replace(/^\//, '');
  return `${TOOL_PREFIX}get_${tail.replace(/[-/]/g, '_')}`;
}

const capitalized = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

const PERIOD_ENUM: JsonSchema = {
  type: 'string',
  enum: PERIOD_NAMES.map((p) => PERIOD_LONG_NAMES[p]),
  description: 'Bucket size; it must suit the span (ONE_MINUTE only for one day, ONE_WEEK only beyond a year). Default: chosen for the span.',
};

const TABLE_NOTE =
  'Answer: CSV text. Header lines `key=value` (rows=, nextSearchAfter= when more rows exist, stats.* with includeStatistics), a blank line, then one row per record with nested fields flattened with dots; fields left out by includes/excludes are empty. Pass nextSearchAfter back as searchAfter for the next page.';
const AGGREGATION_NOTE =
  'Answer: CSV text. Header lines `key=value` (rows=, and the answer members besides data), a blank line, then the data as rows: one column per map level (named after it) and one per value, nested fields flattened with dots.';

export function deriveTool(def: EndpointDef): Tool {
  const request = withFilterSpellings(def.requestSchema);
  const props = (request.properties ?? {}) as Record<string, JsonSchema>;
  const filterProps = ((props.filter?.properties ?? {}) as Record<string, JsonSchema>) ?? {};
  const sortProps = ((props.sort?.properties ?? {}) as Record<string, JsonSchema>) ?? {};
  const properties: Record<string, JsonSchema> = {};
  /** Flat argument -> where it goes in the body: [member] at the top, or [object, member]. */
  const placement = new Map<string, [string] | [string, string]>();
  const add = (arg: string, schema: JsonSchema, place: [string] | [string, string]) => {
    if (placement.has(arg)) throw new Error(`${def.path}: the flat argument ${arg} would stand for two request fields`);
    properties[arg] = schema;
    placement.set(arg, place);
  };
  for (const [name, schema] of Object.entries(props)) {
    if (name === 'filter') for (const [f, s] of Object.entries(filterProps)) add(f, s, ['filter', f]);
    else if (name === 'sort') for (const [m, s] of Object.entries(sortProps)) add(`sort${capitalized(m)}`, s, ['sort', m]);
    else if (name === 'aggregationPeriod') add(name, PERIOD_ENUM, [name]);
    else add(name, schema, [name]);
  }
  // Filter keys are matched as the REST filter object matches them (case and separators ignored,
  // singular and plural alike), so `ticker` reaches a tool whose argument is `tickers`.
  const filterByNormal = new Map<string, string>();
  for (const f of Object.keys(filterProps)) {
    const n = normalizeName(f);
    filterByNormal.set(n, f);
    filterByNormal.set(n.endsWith('S') ? n.slice(0, -1) : `${n}S`, f);
  }
  const required = ((request.required ?? []) as string[]).filter((r) => r !== 'filter' && r !== 'sort');
  const backToArgument = new Map([...placement].map(([arg, place]) => [place.join('.'), arg]));

  return {
    name: toolName(def),
    description: `${def.summary}\n\n${def.description ?? ''}\n\n${def.kind === 'table' ? TABLE_NOTE : AGGREGATION_NOTE}`.replace(/\n{3,}/g, '\n\n'),
    // Open, as the REST filter object is: `ticker` for `tickers` is matched below; anything unknown is named in the error.
    inputSchema: { type: 'object', properties, ...(required.length ? { required } : {}) },
    def,
    toBody(args) {
      const body: Record<string, unknown> = {};
      for (const [arg, value] of Object.entries(args)) {
        const place = placement.get(arg) ?? (filterByNormal.has(normalizeName(arg)) ? ['filter', filterByNormal.get(normalizeName(arg))!] : [arg]);
        if (place.length === 1) body[place[0]] = value;
        else body[place[0]] = { ...((body[place[0]] as Record<string, unknown>) ?? {}), [place[1]]: value };
      }
      return body;
    },
    argumentOf(field) {
      const m = /^(filter|sort)\.([^.[]+)(.*)$/.exec(field);
      return m ? `${backToArgument.get(`${m[1]}.${m[2]}`) ?? m[2]}${m[3]}` : field;
    },
  };
}

export const PING: Omit<Tool, 'def' | 'toBody' | 'argumentOf'> = {
  name: PING_TOOL,
  description: 'Checks the connection and the API key; answers the quota left (it counts as one request).',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
};

/** Every tool of a list of endpoints, by name. */
export function deriveTools(endpoints: readonly EndpointDef[]): Map<string, Tool> {
  return new Map(endpoints.map((def) => deriveTool(def)).map((t) => [t.name, t]));
}
