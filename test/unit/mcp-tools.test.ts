import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { ENDPOINTS } from '../../api/endpoints';
import { answerToCsv, cellText, csvField, keyColumnName } from '../../api/mcp/csv';
import { PING, deriveTool, deriveTools, toolName } from '../../api/mcp/tools';
import type { EndpointDef } from '../../api/request/endpoint';
import { withFilterSpellings } from '../../api/request/filter-schema';
import { PERIOD_LONG_NAMES, type PeriodName } from '../../api/request/aggregation/period';
import { parseCsv, toolArguments } from '../support/csv-oracle';

/**
 * The MCP tools as derived from the endpoints (api/mcp/tools.ts) and the CSV of their answers
 * (api/mcp/csv.ts), without a server: one tool per endpoint whatever endpoints there are, every
 * request field reachable through the flat arguments and back, and CSV that parses as written.
 * test/e2e/clients.test.ts checks the tools against the live REST answers.
 */

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);

/** A body with its filter keys spelled one way: lower case, no plural s. */
function canonical(body: Record<string, unknown>): Record<string, unknown> {
  const filter = body.filter as Record<string, unknown> | undefined;
  return filter ? { ...body, filter: Object.fromEntries(Object.entries(filter).map(([k, v]) => [k.toLowerCase().replace(/s$/, ''), v])) } : body;
}

describe('tools', () => {
  const tools = deriveTools(ENDPOINTS);

  it('one per endpoint, named as the vendor names them with this service prefix, plus mdq_ping', () => {
    expect(tools.size).toBe(ENDPOINTS.length);
    expect(toolName(ENDPOINTS.find((d) => d.path === '/options/tool/order-flow/consolidated')!)).toBe('mdq_get_order_flow_consolidated');
    expect(toolName(ENDPOINTS.find((d) => d.path === '/options/tool/max-pain-over-time')!)).toBe('mdq_get_max_pain_over_time');
    for (const [name, t] of tools) {
      expect(name).toMatch(/^mdq_get_[a-z_]+$/);
      expect(t.inputSchema.type).toBe('object');
      expect(t.description.startsWith(t.def.summary)).toBe(true);
    }
    expect(PING.name).toBe('mdq_ping');
  });

  it("takes every field of its endpoint's request, flat: filter members at the top, sort as sortField/sortDirection", () => {
    for (const t of tools.values()) {
      const request = withFilterSpellings(t.def.requestSchema) as { properties: Record<string, { properties?: Record<string, unknown> }> };
      const args = Object.keys(t.inputSchema.properties as object);
      const expected = Object.entries(request.properties).flatMap(([k, s]) =>
        k === 'filter'
          ? Object.keys(s.properties ?? {})
          : k === 'sort'
            ? Object.keys(s.properties ?? {}).map((m) => `sort${m[0].toUpperCase()}${m.slice(1)}`)
            : [k],
      );
      expect(args.sort()).toEqual(expected.sort());
      // The filter members keep the request schema's own shape, so ajv checks them as the REST route does.
      const filter = request.properties.filter?.properties ?? {};
      for (const [k, s] of Object.entries(filter)) expect((t.inputSchema.properties as Record<string, unknown>)[k]).toEqual(s);
    }
  });

  it('a new endpoint gets its tool from its request schema alone', () => {
    const def: EndpointDef = {
      path: '/options/tool/brand-new',
      summary: 'New.',
      kind: 'aggregation',
      views: [],
      requestSchema: {
        type: 'object',
        required: ['filter', 'mode'],
        properties: {
          mode: { enum: ['A', 'B'] },
          filter: { type: 'object', properties: { ticker: { type: 'string' } } },
          sort: { type: 'object', properties: { field: { type: 'string' } } },
        },
      },
      responseSchema: {
        type: 'object',
        properties: {
          data: { type: 'object', description: 'Ticker -> cell.', additionalProperties: { type: 'object', properties: { n: { type: 'integer' } } } },
        },
      },
      examples: {},
      handle: async () => ({}),
    };
    const t = deriveTool(def);
    expect(t.name).toBe('mdq_get_brand_new');
    expect(Object.keys(t.inputSchema.properties as object).sort()).toEqual(['mode', 'sortField', 'ticker']);
    expect(t.inputSchema.required).toEqual(['mode']);
    expect(t.toBody({ mode: 'A', ticker: 'SPY', sortField: 'N' })).toEqual({ mode: 'A', filter: { ticker: 'SPY' }, sort: { field: 'N' } });
    expect(answerToCsv({ data: { SPY: { n: 3 }, QQQ: { n: 4 } } }, def.responseSchema)).toBe('rows=2\n\nticker,n\nSPY,3\nQQQ,4\n');
  });

  it('refuses to derive a tool whose flat arguments would collide', () => {
    const def = {
      ...ENDPOINTS[0],
      path: '/x/tool/clash',
      requestSchema: { type: 'object', properties: { size: {}, filter: { type: 'object', properties: { size: {} } } } },
    };
    expect(() => deriveTool(def)).toThrow(/size would stand for two request fields/);
  });

  it("every documented example, flattened, passes its tool's input schema and comes back as the same REST body", () => {
    for (const t of tools.values()) {
      const validate = ajv.compile(t.inputSchema);
      for (const [name, ex] of Object.entries(t.def.examples)) {
        const args = toolArguments(ex.request);
        expect({ tool: t.name, name, errors: validate(args) ? null : validate.errors }).toEqual({ tool: t.name, name, errors: null });
        const { aggregationPeriod, ...body } = t.toBody(args);
        const { aggregationPeriod: documented, ...rest } = ex.request;
        // Filter keys may come back in the tool's spelling (`sector` as `sectors`), as the REST filter object reads them alike.
        expect(canonical(body)).toEqual(canonical(rest));
        if (documented) expect(aggregationPeriod).toBe(PERIOD_LONG_NAMES[documented as PeriodName]);
      }
    }
  });

  it('matches filter arguments the way the REST filter object does: case, separators, singular and plural', () => {
    const flow = tools.get('mdq_get_order_flow_consolidated')!;
    expect(flow.toBody({ ticker: 'SPY', TRADE_SIDE_CODE: ['A'] })).toEqual({ filter: { tickers: 'SPY', tradeSideCodes: ['A'] } });
    expect(flow.argumentOf('filter.premiumRange.min')).toBe('premiumRange.min');
    expect(flow.argumentOf('filter.tickers[1]')).toBe('tickers[1]');
    expect(flow.argumentOf('sort.field')).toBe('sortField');
    expect(flow.argumentOf('size')).toBe('size');
  });
});

describe('CSV answers', () => {
  it("every endpoint's table has distinct, named columns", () => {
    for (const def of ENDPOINTS) {
      const [header] = answerToCsv({}, def.responseSchema).split('\n\n')[1].split('\n');
      const columns = parseCsv(`${header}\n`)[0];
      expect({ path: def.path, unique: new Set(columns).size === columns.length }).toEqual({ path: def.path, unique: true });
      expect(columns).not.toContain('key');
      expect(columns).not.toContain('');
    }
  });

  it('names map levels from their descriptions', () => {
    expect(keyColumnName('Expiration date (ascending)')).toBe('expirationDate');
    expect(keyColumnName(' strike string (ascending) ')).toBe('strike');
    expect(keyColumnName('Bucket start (epoch-ms string, ascending)')).toBe('bucketStart');
    expect(keyColumnName('Strike ("215.0", dollars, ascending)')).toBe('strike');
    expect(keyColumnName(undefined)).toBe('key');
    expect(keyColumnName('the one strike key of the expiration')).toBe('key');
  });

  it('quotes as RFC 4180 says, and writes lists and objects as JSON', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a, b')).toBe('"a, b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(cellText(null)).toBe('');
    expect(cellText(0.1)).toBe('0.1');
    expect(cellText(['A', 'B'])).toBe('["A","B"]');
    const news = ENDPOINTS.find((d) => d.path === '/news/tool/news-articles')!;
    const row = { id: 1, publishedTime: 2, title: 'Deal, "big"', topics: ['M_AND_A'], tickers: [{ ticker: 'X', sentiment: 'NEUTRAL' }], body: 'a\nb' };
    const csv = answerToCsv({ data: [row], nextSearchAfter: ['2', '1'] }, news.responseSchema);
    const [head, table] = csv.split('\n\n');
    expect(head).toBe('rows=1\nnextSearchAfter=["2","1"]');
    const [columns, cells] = parseCsv(table);
    expect(Object.fromEntries(columns.map((c, i) => [c, cells[i]]))).toEqual({
      id: '1',
      publishedTime: '2',
      title: 'Deal, "big"',
      topics: '["M_AND_A"]',
      tickers: '[{"ticker":"X","sentiment":"NEUTRAL"}]',
      body: 'a\nb',
    });
  });

  it('flattens nested records with dots, repeats a record over the map inside it, and leaves projected-out fields empty', () => {
    const flow = ENDPOINTS.find((d) => d.path === '/options/tool/order-flow/consolidated')!;
    const csv = answerToCsv(
      { data: [{ id: 'x', greeks: { delta: 0.5 }, moneyness: { moneyType: 'ITM' } }], statistics: { CALL: { ASK: { premium: 5 } } } },
      flow.responseSchema,
    );
    const [head, table] = csv.split('\n\n');
    expect(head).toBe('rows=1\nstats.CALL.ASK.premium=5');
    const [columns, cells] = parseCsv(table);
    const row = Object.fromEntries(columns.map((c, i) => [c, cells[i]]));
    expect(row).toMatchObject({ id: 'x', 'greeks.delta': '0.5', 'moneyness.moneyType': 'ITM', ticker: '', premium: '' });
    const exposure = ENDPOINTS.find((d) => d.path === '/options/tool/exposure-by-strike')!;
    const answer = { data: { SPY: { stockPrice: 600, exposureMap: { '2026-12-18': { '600.0': { callExposure: 1 }, '610.0': { putExposure: -2 } } } } } };
    expect(answerToCsv(answer, exposure.responseSchema)).toBe(
      'rows=2\n\nticker,stockPrice,expirationDate,strike,callExposure,putExposure\nSPY,600,2026-12-18,600.0,1,\nSPY,600,2026-12-18,610.0,,-2\n',
    );
  });
});
