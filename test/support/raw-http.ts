import http from 'http';
import type { Config } from '../../services/config';
import { freePort } from '../../services/stack/process';
import { waitFor } from './env';
import { TEST_KEY_SECRET } from './http';
import { configEnv, spawnTs } from './pipeline';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: any;
}

/**
 * One HTTP request with node's http client, for what fetch cannot do: choose the client address
 * (any 127.x.y.z is this machine, so per-address limits can be tested from several "clients"),
 * send any method with any body bytes.
 */
export function rawRequest(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string | Buffer; localAddress?: string } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: opts.method ?? 'GET', headers: opts.headers, localAddress: opts.localAddress, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown = null;
        try {
          json = JSON.parse(text);
        } catch {
          json = null;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

export interface SpawnedApi {
  url: string;
  port: number;
  pid: number;
  alive(): boolean;
  output(): string;
  stop(): Promise<void>;
}

/**
 * A real `api/main.ts` process (what `npm run api` runs) on a free port, against the test stack
 * and the test file's key prefix, with the test key secret. Resolves once it answers /healthz.
 * One process unless `env` sets MDQ_API_WORKERS: tests of workers ask for them, the others need
 * not pay for starting a worker per core.
 */
export async function spawnApi(config: Config, env: NodeJS.ProcessEnv = {}, opts: { awaitRedis?: boolean; nodeArgs?: string[] } = {}): Promise<SpawnedApi> {
  const port = await freePort();
  // Workers log at info so that spawnApi sees each one start listening (below).
  const logLevel = Number(env.MDQ_API_WORKERS ?? 1) > 1 ? { LOG_LEVEL: 'info' } : {};
  const child = spawnTs(
    'api/main.ts',
    [],
    {
      ...configEnv(config),
      PORT: String(port),
      API_KEY_SECRET: TEST_KEY_SECRET,
      MDQ_API_WORKERS: '1',
      ...logLevel,
      ...env,
    },
    opts.nodeArgs,
  );
  const url = `http://127.0.0.1:${port}`;
  let exited = false;
  child.on('exit', () => (exited = true));
  await waitFor(
    'the API process to answer /healthz',
    async () => {
      if (exited) throw new Error(`api/main.ts exited early:\n${child.output()}`);
      try {
        return (await fetch(`${url}/healthz`)).status === 200;
      } catch {
        return false;
      }
    },
    120_000,
    100,
  );
  // /healthz answers before the process's Redis connection is up (liveness does not need Redis),
  // and until it is, every request is a 503. /readyz reports the connection without drawing on the
  // quota, so tests that count requests start from a process that can serve them.
  if (opts.awaitRedis ?? true) {
    await waitFor(
      'the API process to reach Redis',
      async () => {
        if (exited) throw new Error(`api/main.ts exited early:\n${child.output()}`);
        try {
          const body = (await (await fetch(`${url}/readyz`)).json()) as { checks?: { redis?: string } };
          return body.checks?.redis === 'ok';
        } catch {
          return false;
        }
      },
      60_000,
      100,
    );
  }
  // Each worker of a cluster listens once its own Redis connection is up (api/main.ts), and the
  // primary hands connections only to listening workers: wait for all of them, so tests that look
  // at which worker answered see every worker from the first request.
  const workers = Number(env.MDQ_API_WORKERS ?? 1);
  if (workers > 1) {
    await waitFor(
      `${workers} API workers to listen`,
      async () => {
        if (exited) throw new Error(`api/main.ts exited early:\n${child.output()}`);
        return child.output().split('"msg":"API listening"').length - 1 >= workers;
      },
      60_000,
      100,
    );
  }
  return {
    url,
    port,
    pid: child.pid!,
    alive: () => !exited,
    output: () => child.output(),
    async stop() {
      if (exited) return;
      const done = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await done;
    },
  };
}
