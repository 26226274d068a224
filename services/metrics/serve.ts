import http from 'http';
import type { Logger } from '../log';

/** A prom-client Registry, or a process's threads summed (services/threads/pool.ts). */
export interface MetricsSource {
  readonly contentType: string;
  metrics(): Promise<string>;
}

/**
 * Prometheus exposition for processes without an HTTP API of their own (the projectors):
 * GET /metrics on the given port; anything else is a 404. No data is exposed, only counters.
 */
export function serveMetrics(port: number, registry: MetricsSource, log?: Logger): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found; metrics are at GET /metrics\n');
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'Content-Type': registry.contentType }).end(req.method === 'HEAD' ? undefined : text),
      (err) => {
        log?.error({ err }, 'metrics collection failed');
        res.writeHead(500, { 'Content-Type': 'text/plain' }).end('metrics collection failed\n');
      },
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, () => {
      log?.info({ port }, 'metrics on /metrics');
      resolve(server);
    });
  });
}
