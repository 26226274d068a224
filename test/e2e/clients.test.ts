import { execFile } from 'child_process';
import path from 'path';
import fc from 'fast-check';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ENDPOINTS } from '../../api/endpoints';
import { V1 } from '../../api/request/endpoint';
import { DEFAULT_QUOTA, type QuotaSettings } from '../../api/request/quota';
import { repoRoot } from '../../services/stack/paths';
import { adapt, landmarks, takesSession, type Landmarks } from '../../scripts/examples-on-data';
import { openApiDocument } from '../../scripts/generate-clients';
import { createMdqClient, post, rows, type MdqClient } from '../../clients/typescript/src';
import { checkCsvAgainstAnswer, toolArguments } from '../support/csv-oracle';
import { walkApi } from '../support/cursor-walk';
import { hostileRequests } from '../support/hostile-bodies';
import { testConfig } from '../support/env';
import { TestApi, startApi } from '../support/http';
import { SimulatedMarket, simulatedMarket } from '../support/simulated-market';

/**
 * The three ways in besides curl, against a live service over a simulated market (two sessions
 * of the `mini` profile, the newest with ticks, standing still once produced):
 *
 * - the MCP server at /mcp, through the official MCP TypeScript SDK's client: the tool list, every
 *   tool with every example of its endpoint (as documented, and moved onto the data) answering
 *   CSV that matches the REST answer to the same request (test/support/csv-oracle.ts), errors as
 *   text inside a 200, the stateless form without `initialize`, keys and quota;
 * - the generated TypeScript client (clients/typescript): every endpoint's examples, cursor walks
 *   to their end, a 429 waited out;
 * - the Python example (clients/python) run by the machine's python3: a POST, a cursor walk, 429s
 *   waited out by Retry-After.
 */

const config = testConfig('clients');
const TICKER = 'AAPL';
/** Small enough that a walk of a few pages is refused along the way. */
const TIGHT: QuotaSettings = { perUser: 1, perAddress: 1000, windowMs: 2_000, burstPerUser: 0, burstWindowMs: 1_000 };
let market: SimulatedMarket;
let api: TestApi;
let tight: TestApi;
let spots: Landmarks;

/** Each endpoint's examples: as documented, and its first moved onto the data. */
function examples(): { path: string; name: string; body: Record<string, unknown>; onData: boolean }[] {
  return ENDPOINTS.flatMap((def) => [
    ...Object.entries(def.examples).map(([name, e]) => ({ path: def.path, name, body: e.request, onData: false })),
    { path: def.path, name: 'on the data', body: adapt(Object.values(def.examples)[0]!.request, spots, takesSession(def), TICKER), onData: true },
  ]);
}

beforeAll(async () => {
  market = await simulatedMarket(config, { sessions: 2, tickSessions: 1, profile: 'mini' });
  api = await startApi(config);
  tight = await startApi(config, { quota: TIGHT, owner: { workspace: 'w2', user: 'tight' } });
  spots = (await landmarks((p, body) => api.post(`${V1}${p}`, body), TICKER))!;
  expect(spots).toBeTruthy();
}, 300_000);

afterAll(async () => {
  await api?.close();
  await tight?.close();
  await market?.stop();
});

describe('the MCP server', () => {
  let mcp: Client;

  const connect = async (key = api.key, url = api.url) => {
    const client = new Client({ name: 'mdq-clients-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
    return client;
  };

  /** What a tool call gives: its text, and whether it is an error. */
  const call = async (client: Client, name: string, args: Record<string, unknown>) => {
    const result = (await client.callTool({ name, arguments: args })) as { content: { type: string; text: string }[]; isError?: boolean };
    expect(result.content).toHaveLength(1);
    expect(result.content[0].type).toBe('text');
    return { text: result.content[0].text, isError: result.isError === true };
  };

  const toolOf = (p: string) => `mdq_get_${p.split('/tool/')[1].replace(/[-/]/g, '_')}`;

  beforeAll(async () => {
    mcp = await connect();
  });

  afterAll(async () => {
    await mcp?.close();
  });

  it('names itself and lists one tool per endpoint plus the ping, with flat arguments', async () => {
    expect(mcp.getServerVersion()).toMatchObject({ name: 'mdq' });
    expect(mcp.getServerCapabilities()?.tools).toBeDefined();
    const { tools } = await mcp.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['mdq_ping', ...ENDPOINTS.map((d) => toolOf(d.path))].sort());
    const flow = tools.find((t) => t.name === 'mdq_get_order_flow_consolidated')!;
    const args = Object.keys(flow.inputSchema.properties ?? {});
    expect(args).toEqual(expect.arrayContaining(['tickers', 'premiumRange', 'sortField', 'sortDirection', 'size', 'searchAfter', 'filterExpression']));
    expect(args).not.toContain('filter');
    expect(args).not.toContain('sort');
    const netFlow = tools.find((t) => t.name === 'mdq_get_net_flow')!;
    expect((netFlow.inputSchema.properties as Record<string, { enum?: string[] }>).aggregationPeriod.enum).toEqual(
      expect.arrayContaining(['ONE_MINUTE', 'FIVE_MINUTE', 'ONE_HOUR', 'ONE_DAY']),
    );
    expect(netFlow.inputSchema.required).toEqual(['dataMode']);
    expect(tools.find((t) => t.name === 'mdq_get_heat_map')!.inputSchema.required).toEqual(['dataMode']);
  });

  it('answers every example of every endpoint with the CSV of the REST answer, or its error as text', async () => {
    let withRows = 0;
    const onData: string[] = [];
    for (const ex of examples()) {
      const rest = await api.post(`${V1}${ex.path}`, ex.body);
      const tool = await call(mcp, toolOf(ex.path), toolArguments(ex.body));
      const what = `${ex.path} ${ex.name}`;
      expect({ what, status: rest.status < 500 }).toEqual({ what, status: true });
      if (rest.status === 200) {
        expect({ what, isError: tool.isError, text: tool.isError ? tool.text : '' }).toEqual({ what, isError: false, text: '' });
        const csv = checkCsvAgainstAnswer(tool.text, rest.json);
        if (csv.rows.length) withRows++;
        if (ex.onData && csv.rows.length) onData.push(ex.path);
      } else {
        expect({ what, isError: tool.isError }).toEqual({ what, isError: true });
        if (rest.status === 400) expect(tool.text).toMatch(/^input validation failed: /);
        else {
          const m = /^mdq: (\S+) call failed with status (\d+): (\{.*\})$/s.exec(tool.text)!;
          expect(m).toBeTruthy();
          expect([m[1], Number(m[2])]).toEqual([`${V1}${ex.path}`, rest.status]);
          const { requestId: _a, ...problem } = JSON.parse(m[3]);
          const { requestId: _b, ...expected } = rest.json;
          expect(problem).toEqual(expected);
        }
      }
    }
    // Moved onto the data, every endpoint answers rows; the documented examples name SPY and fixed dates, which this market mostly lacks.
    expect(onData.sort()).toEqual(ENDPOINTS.map((d) => d.path).sort());
    expect(withRows).toBeGreaterThanOrEqual(ENDPOINTS.length);
  });

  it('walks a cursor: nextSearchAfter in the header, passed back as searchAfter', async () => {
    const all = await walkApi(api, `${V1}/options/tool/order-flow/unconsolidated`, { size: 40, filter: { tickers: [TICKER] } });
    expect(all.pages).toBeGreaterThan(2);
    const ids: string[] = [];
    let searchAfter: string[] | undefined;
    for (let page = 0; page < 100; page++) {
      const { text, isError } = await call(mcp, 'mdq_get_order_flow_unconsolidated', {
        size: 40,
        tickers: [TICKER],
        includes: ['ID'],
        ...(searchAfter ? { searchAfter } : {}),
      });
      expect(isError).toBe(false);
      const {
        header,
        columns,
        rows: page_,
      } = checkCsvAgainstAnswer(
        text,
        (await api.post(`${V1}/options/tool/order-flow/unconsolidated`, { size: 40, filter: { tickers: [TICKER] }, includes: ['ID'], searchAfter })).json,
      );
      ids.push(...page_.map((r) => r[columns.indexOf('id')]));
      if (!header.nextSearchAfter) break;
      searchAfter = JSON.parse(header.nextSearchAfter);
    }
    expect(ids).toEqual(all.rows.map((r) => r.id));
  });

  it('gives bad arguments back as error text in a 200, naming the argument', async () => {
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['mdq_get_order_flow_consolidated', { size: 0 }, /^input validation failed: size: /],
      ['mdq_get_order_flow_consolidated', { tickers: 5 }, /^input validation failed: tickers: /],
      ['mdq_get_order_flow_consolidated', { premiumRange: { min: 'a lot' } }, /^input validation failed: premiumRange\.min: /],
      ['mdq_get_order_flow_consolidated', { sortField: 'NOPE' }, /^input validation failed: sortField: /],
      ['mdq_get_order_flow_consolidated', { colour: 'red' }, /^input validation failed: colour: is not accepted/],
      ['mdq_get_net_flow', { dataMode: 'PREMIUM', aggregationPeriod: 'FORTNIGHT' }, /^input validation failed: /],
      ['mdq_get_net_flow', {}, /^input validation failed: dataMode: is required/],
      ['mdq_get_max_pain', { ticker: TICKER }, /^input validation failed: expirationDate: is required/],
      ['mdq_get_max_pain', { ticker: 'NOPE', expirationDate: '2026-01-16' }, /^mdq: \/v1\/options\/tool\/max-pain call failed with status 422: \{/],
      ['mdq_get_news_articles', { filterExpression: { field: 'NOPE', operation: 'EQ', value: 1 } }, /^input validation failed: filterExpression/],
      ['mdq_nope', {}, /^unknown tool "mdq_nope"/],
    ];
    for (const [name, args, expected] of cases) {
      const r = await call(mcp, name, args);
      expect({ name, args, isError: r.isError, text: r.text }).toEqual({ name, args, isError: true, text: expect.stringMatching(expected) });
    }
  });

  it('answers hostile arguments to every tool with a result, never a 5xx or a protocol error', async () => {
    const fieldNames = ['TICKER', 'PREMIUM', 'TRADE_TIME', 'STRIKE_PRICE', 'EXPIRATION_DATE', 'SESSION_DATE'];
    const bodies = fc.sample(hostileRequests(ENDPOINTS, ['/v1/nope'], fieldNames), { numRuns: 300, seed: 7 });
    let sent = 0;
    for (const req of bodies) {
      const def = ENDPOINTS.find((d) => `${V1}${d.path}` === req.path);
      let body: unknown;
      try {
        body = JSON.parse(typeof req.body === 'string' ? req.body : Buffer.from(req.body).toString('utf8'));
      } catch {
        continue; // not JSON: nothing a tool call can carry
      }
      if (!def || typeof body !== 'object' || body === null || Array.isArray(body)) continue;
      // Nested too deep for JSON.stringify here: the raw text goes as the arguments, unflattened.
      const raw = typeof req.body === 'string' ? req.body : Buffer.from(req.body).toString('utf8');
      let args: string;
      try {
        args = JSON.stringify(toolArguments(body as Record<string, unknown>));
      } catch {
        args = raw;
      }
      const message = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"${toolOf(def.path)}","arguments":${args}}}`;
      const res = await fetch(`${api.url}/mcp`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${api.key}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: message,
      });
      // Past the body limit (the REST API's 64 KiB) the transport refuses the message whole.
      if (Buffer.byteLength(message) > 64 * 1024) {
        expect(res.status).toBe(413);
        continue;
      }
      const answer = (await res.json()) as { result?: { content: { type: string; text: string }[] }; error?: unknown };
      expect({ kind: req.kind, status: res.status, error: answer.error }).toEqual({ kind: req.kind, status: 200, error: undefined });
      expect(answer.result!.content[0].type).toBe('text');
      // A 5xx turned into text would hide a bug as well as a 5xx status would show it.
      expect({ kind: req.kind, text: answer.result!.content[0].text }).not.toEqual({ kind: req.kind, text: expect.stringMatching(/status 5\d\d/) });
      sent++;
    }
    expect(sent).toBeGreaterThan(100);
  });

  it('works statelessly: a lone tools/call over plain HTTP, a batch, no initialize', async () => {
    const rpc = (body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${api.url}/mcp`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${api.key}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify(body),
      });
    const one = await rpc({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'mdq_ping', arguments: {} } });
    expect(one.status).toBe(200);
    expect(one.headers.get('content-type')).toMatch(/^application\/json/);
    expect(one.headers.get('mcp-session-id')).toBeNull();
    const answer = (await one.json()) as { result: { content: { text: string }[] } };
    expect(answer).toMatchObject({ jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text' }] } });
    expect(answer.result.content[0].text).toMatch(/^status=ok\nserver=mdq /);
    // A client that only says it accepts JSON is served too.
    const plain = await rpc({ jsonrpc: '2.0', id: 8, method: 'tools/list' }, { Accept: 'application/json' });
    expect(plain.status).toBe(200);
    expect(((await plain.json()) as { result: { tools: unknown[] } }).result.tools).toHaveLength(ENDPOINTS.length + 1);
    const batch = await rpc([
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'mdq_get_max_pain_over_time', arguments: { ticker: TICKER } } },
    ]);
    expect(batch.status).toBe(200);
    const answers = (await batch.json()) as { id: number; result: { content?: { text: string }[] } }[];
    expect(answers.map((a) => a.id).sort()).toEqual([1, 2]);
    checkCsvAgainstAnswer(
      answers.find((a) => a.id === 2)!.result.content![0].text,
      (await api.post(`${V1}/options/tool/max-pain-over-time`, { filter: { ticker: TICKER } })).json,
    );
    // Malformed JSON-RPC is the protocol's own error, never a 5xx.
    for (const body of ['{', '{"jsonrpc":"2.0"}', '[]', '"x"']) {
      const res = await fetch(`${api.url}/mcp`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${api.key}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body,
      });
      expect({ body, status: res.status < 500 }).toEqual({ body, status: true });
    }
  });

  it('takes the same keys as the REST API: none or a bad one is the 401 problem; GET is a 405', async () => {
    for (const auth of [undefined, 'Bearer mdq_nope']) {
      const res = await fetch(`${api.url}/mcp`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...(auth ? { Authorization: auth } : {}) },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(((await res.json()) as { code: string }).code).toBe('Unauthorized');
      expect(res.headers.get('x-ratelimit-limit')).not.toBeNull();
    }
    const get = await fetch(`${api.url}/mcp`, { headers: { Authorization: `Bearer ${api.key}`, Accept: 'text/event-stream' } });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    await expect(connect('mdq_nope')).rejects.toThrow();
  });

  it('draws on the same quota: a tool call is one request, the handshake and the list none; a refusal is text', async () => {
    const remaining = async () => Number((await api.post(`${V1}/news/tool/news-articles`, { size: 1 })).headers.get('x-ratelimit-remaining'));
    const r0 = await remaining();
    await call(mcp, 'mdq_get_news_articles', { size: 1 });
    await call(mcp, 'mdq_ping', {});
    const fresh = await connect();
    await fresh.listTools();
    await fresh.close();
    // Two tool calls, the second REST request itself: three fewer.
    expect(await remaining()).toBe(r0 - 3);
    // A batch is no way around it: each tool call in it counts, the list in it does not.
    const batch = await fetch(`${api.url}/mcp`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${api.key}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'mdq_ping', arguments: {} } },
        { jsonrpc: '2.0', id: 2, method: 'tools/list' },
        { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'mdq_get_news_articles', arguments: { size: 1 } } },
      ]),
    });
    expect(batch.status).toBe(200);
    expect(((await batch.json()) as { id: number }[]).map((a) => a.id).sort()).toEqual([1, 2, 3]);
    // The batch's two calls, then the REST request itself: three fewer again.
    expect(await remaining()).toBe(r0 - 6);

    const limited = await connect(tight.key, tight.url);
    const results = [];
    for (let i = 0; i < TIGHT.perUser + 1; i++) results.push(await call(limited, 'mdq_get_news_articles', { size: 1 }));
    expect(results.slice(0, TIGHT.perUser).every((r) => !r.isError)).toBe(true);
    const refused = results[TIGHT.perUser];
    expect(refused.isError).toBe(true);
    const m = /^mdq: \/v1\/news\/tool\/news-articles call failed with status 429: (\{.*\})$/s.exec(refused.text)!;
    expect(JSON.parse(m[1])).toMatchObject({ code: 'QuotaExceeded', status: 429, limit: TIGHT.perUser, retryAfterSeconds: expect.any(Number) });
    await limited.close();
    await new Promise((r) => setTimeout(r, TIGHT.windowMs + 100));
  });
});

describe('the TypeScript client', () => {
  let client: MdqClient;

  beforeAll(() => {
    client = createMdqClient({ baseUrl: api.url, apiKey: api.key });
  });

  it('is generated from the document the API serves at /v1/openapi.json (with the default quota)', async () => {
    const standard = await startApi(config, { quota: DEFAULT_QUOTA, owner: { workspace: 'w3', user: 'standard' } });
    const served = await (await fetch(`${standard.url}/v1/openapi.json`)).json();
    await standard.close();
    expect(served).toEqual(JSON.parse(JSON.stringify(openApiDocument())));
  });

  it("answers every endpoint's examples as the REST API does", async () => {
    for (const ex of examples()) {
      const rest = await api.post(`${V1}${ex.path}`, ex.body);
      const { data, error, response } = await (
        client.POST as (p: string, init: { body: unknown }) => Promise<{ data?: unknown; error?: unknown; response: Response }>
      )(`${V1}${ex.path}`, { body: ex.body });
      expect({ path: ex.path, name: ex.name, status: response.status }).toEqual({ path: ex.path, name: ex.name, status: rest.status });
      if (rest.status === 200) expect(data).toEqual(rest.json);
      else expect({ ...(error as object), requestId: undefined }).toEqual({ ...rest.json, requestId: undefined });
    }
    // The typed helper: the answer, or the problem thrown.
    const pain = await post(client, '/v1/options/tool/max-pain', { filter: { ticker: TICKER, expirationDate: spots.expiration } });
    expect(pain.maxPainStrikePrice).toBeGreaterThan(0);
    await expect(post(client, '/v1/options/tool/max-pain', { filter: { ticker: TICKER } })).rejects.toMatchObject({
      status: 400,
      problem: { code: 'ValidationFailure' },
    });
  });

  it('walks a cursor to its end as an async iterator', async () => {
    for (const p of ['/v1/options/tool/order-flow/unconsolidated', '/v1/equities/tool/equity-prints'] as const) {
      const body = { size: 50, filter: { tickers: [TICKER] } };
      const expected = await walkApi(api, p, body);
      expect(expected.pages).toBeGreaterThan(2);
      const got = [];
      for await (const row of rows(client, p, body)) got.push(row);
      expect(got).toEqual(expected.rows);
    }
  });

  it('waits out a 429 for its Retry-After and carries on', async () => {
    const waits: number[] = [];
    const limited = createMdqClient({ baseUrl: tight.url, apiKey: tight.key, onRetry: (s, res) => (expect(res.status).toBe(429), waits.push(s)) });
    // Pages enough for a few refusals, not so many that the waits add up.
    const tape = '/v1/options/tool/order-flow/unconsolidated';
    const total = (await walkApi(api, tape, { size: 1000, filter: { tickers: [TICKER] } })).rows.length;
    const body = { size: Math.ceil(total / 3), filter: { tickers: [TICKER] } };
    const expected = await walkApi(api, tape, body);
    expect(expected.pages).toBeGreaterThan(2);
    const got = [];
    for await (const a of rows(limited, tape, body)) got.push(a);
    expect(got).toEqual(expected.rows);
    expect(waits.length).toBeGreaterThan(0);
    expect(waits.every((s) => s >= 1 && s <= TIGHT.windowMs / 1000)).toBe(true);
    await new Promise((r) => setTimeout(r, TIGHT.windowMs + 100));
  });
});

describe('the Python example', () => {
  const run = (target: TestApi): Promise<{ code: number | null; out: string; err: string }> =>
    new Promise((resolve) => {
      execFile(
        'python3',
        [path.join(repoRoot, 'clients', 'python', 'mdq_example.py'), TICKER],
        { env: { PATH: process.env.PATH, HOME: process.env.HOME, MDQ_URL: target.url, MDQ_API_KEY: target.key }, timeout: 120_000 },
        (err, out, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out, err: stderr }),
      );
    });

  const expectations = async () => {
    const top = await api.post(`${V1}/options/tool/order-flow/consolidated`, {
      size: 5,
      sort: { field: 'PREMIUM', direction: 'DESCENDING' },
      filter: { tickers: [TICKER] },
    });
    const news = await walkApi(api, `${V1}/news/tool/news-articles`, { size: 20, filter: { tickers: [TICKER] } });
    return { ids: top.json.data.map((t: { id: string }) => t.id), articles: news.rows.length, pages: news.pages };
  };

  it('POSTs, walks a cursor and prints what the API answers', async () => {
    const { code, out, err } = await run(api);
    expect({ code, err }).toEqual({ code: 0, err: '' });
    const want = await expectations();
    expect(want.ids.length).toBe(5);
    expect(out).toContain(`largest consolidated trades of ${TICKER}: 5`);
    expect([...out.matchAll(/^ {2}(\S+) (?:CALL|PUT) /gm)].map((m) => m[1])).toEqual(want.ids);
    expect(out).toContain(`news articles tagging ${TICKER}: ${want.articles}\n`);
    expect(out).toContain('429 answers waited out: 0 ');
  });

  it('waits out 429s by Retry-After and still gets everything', async () => {
    const want = await expectations();
    // One request a window: the walk's first page already follows the POST too soon.
    const { code, out, err } = await run(tight);
    expect({ code, err }).toEqual({ code: 0, err: '' });
    expect(out).toContain(`news articles tagging ${TICKER}: ${want.articles}\n`);
    const waited = /429 answers waited out: (\d+) \((\d+) s\)/.exec(out)!;
    expect(Number(waited[1])).toBeGreaterThan(0);
    expect(Number(waited[2])).toBeGreaterThanOrEqual(Number(waited[1]));
  });
});
