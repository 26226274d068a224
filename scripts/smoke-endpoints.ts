import fs from 'fs';
import path from 'path';
import { ENDPOINTS } from '../api/endpoints';
import { V1 } from '../api/request/endpoint';
import { loadConfig } from '../services/config';
import { defaultDataDir } from '../services/stack/paths';
import { adapt, landmarks, takesSession } from './examples-on-data';

/**
 * `npm run smoke` — one request per endpoint against the running `npm start` (its port and the
 * dev key in the data folder): each endpoint's first documented example, moved onto the running
 * data (the latest session, a ticker with prints, one of its expirations and contracts). Prints
 * the status and whether the answer holds data; exits non-zero when an endpoint answers without.
 * `--wait S` retries for up to S seconds (after a start, until the views hold data).
 * `--sessions-back N` asks every endpoint that takes a `sessionDate` about the session N trading
 * sessions before the latest with prints instead (a warm session of the tapes when N >= 3).
 */

const TICKER = process.env.SMOKE_TICKER ?? 'SPY';
const waitAt = process.argv.indexOf('--wait');
const waitS = waitAt >= 0 ? Number(process.argv[waitAt + 1] ?? 0) : 0;
const backAt = process.argv.indexOf('--sessions-back');
const sessionsBack = backAt >= 0 ? Number(process.argv[backAt + 1] ?? 0) : 0;

const dataDir = process.env.MDQ_DATA_DIR || defaultDataDir();
const base = `http://127.0.0.1:${loadConfig().port}${V1}`;
const key = fs.readFileSync(path.join(dataDir, 'dev-api-key'), 'utf8').trim();

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers of thirty shapes, probed loosely
type Json = any;

async function post(p: string, body: unknown): Promise<{ status: number; json: Json }> {
  for (;;) {
    const res = await fetch(base + p, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    // The dev key has the default quota: wait a refusal out rather than report it.
    if (res.status === 429) {
      await new Promise((r) => setTimeout(r, 1000 * Number(res.headers.get('Retry-After') ?? 1)));
      continue;
    }
    return { status: res.status, json: await res.json().catch(() => null) };
  }
}

const hasData = (json: Json): boolean => {
  const d = json?.data;
  if (Array.isArray(d)) return d.length > 0;
  if (d && typeof d === 'object') return Object.keys(d).length > 0;
  return json !== null && typeof json === 'object' && Object.keys(json).length > 0 && d === undefined;
};

async function main(): Promise<void> {
  const deadline = Date.now() + waitS * 1000;
  const results = new Map<string, { status: number; data: boolean; detail?: string }>();
  for (;;) {
    const l = await landmarks(post, TICKER, sessionsBack).catch(() => null);
    if (l) {
      // Each round asks again only the endpoints that have not answered with data yet.
      for (const def of ENDPOINTS) {
        if (results.get(def.path)?.data) continue;
        if (l.sessionDate && !takesSession(def)) continue;
        const res = await post(def.path, adapt(Object.values(def.examples)[0]!.request, l, takesSession(def), TICKER));
        results.set(def.path, { status: res.status, data: res.status === 200 && hasData(res.json), detail: res.status === 200 ? undefined : res.json?.detail });
      }
    }
    const asked = ENDPOINTS.filter((d) => !l?.sessionDate || takesSession(d));
    const missing = asked.filter((d) => !results.get(d.path)?.data);
    if (!missing.length || Date.now() >= deadline) {
      if (!l) console.log(`no print of ${TICKER} yet`);
      if (l?.sessionDate) console.log(`session ${l.sessionDate}, ${sessionsBack} sessions back: the ${asked.length} endpoints that take a sessionDate`);
      for (const d of asked) {
        const r = results.get(d.path);
        console.log(`${r?.data ? 'data ' : 'EMPTY'} ${r?.status ?? '-'} ${d.path}${r?.detail ? `  (${r.detail})` : ''}`);
      }
      console.log(`${asked.length - missing.length} of ${asked.length} endpoints answered with data`);
      process.exit(missing.length ? 1 : 0);
    }
    await new Promise((r) => setTimeout(r, 5_000));
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
