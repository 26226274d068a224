import type { Express } from 'express';
import { allowOnly } from '../request/methods';
import { Problem } from '../request/problem';
import type { HttpMetrics } from './http-metrics';
import type { ReadinessCheck } from './readiness';

export const OPS_PATHS = ['/healthz', '/readyz', '/metrics'] as const;

/**
 * Operations endpoints: no key, no quota (probes and scrapers must never be throttled, and
 * /healthz must answer while Redis is away), no market data in any answer.
 */
export function mountOps(app: Express, readiness: ReadinessCheck, metrics: HttpMetrics, metricsText = () => metrics.registry.metrics()): void {
  // Liveness: the process answers HTTP. Deliberately independent of Redis, so an orchestrator
  // does not restart API processes while the data store is down (they recover by themselves).
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  app.get('/readyz', async (_req, res) => {
    const r = await readiness.check();
    if (!r.ready) {
      throw new Problem('NotReady', `Not ready: ${r.reason}`, { headers: { 'Retry-After': '5' }, extensions: { checks: r.checks } });
    }
    res.json({ status: 'ready', checks: r.checks });
  });

  app.get('/metrics', async (_req, res) => {
    res.type(metrics.registry.contentType).send(await metricsText());
  });

  for (const p of OPS_PATHS) allowOnly(app, p, ['GET', 'HEAD']);
}
