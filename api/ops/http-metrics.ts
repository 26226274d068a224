import type { NextFunction, Request, Response } from 'express';
import { Counter, Histogram, Registry } from 'prom-client';
import type { Problem } from '../request/problem';

/**
 * Request metrics of the API: counts and latency histograms per endpoint, method and status, and
 * problem counts per problem type. `endpoint` is a route label (route-label.ts), never a raw path.
 */
export class HttpMetrics {
  private readonly requests: Counter<'endpoint' | 'method' | 'status'>;
  private readonly duration: Histogram<'endpoint' | 'method' | 'status'>;
  private readonly problems: Counter<'type' | 'status'>;

  constructor(
    readonly registry: Registry,
    private readonly routeLabel: (req: Request) => string,
  ) {
    const labelNames = ['endpoint', 'method', 'status'] as const;
    this.requests = new Counter({ name: 'mdq_http_requests_total', help: 'HTTP requests answered', labelNames, registers: [registry] });
    this.duration = new Histogram({
      name: 'mdq_http_request_duration_seconds',
      help: 'Time from receiving a request to finishing its response',
      labelNames,
      buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    });
    this.problems = new Counter({
      name: 'mdq_problems_total',
      help: 'Problem responses, by problem type (its code) and status',
      labelNames: ['type', 'status'],
      registers: [registry],
    });
  }

  middleware() {
    return (req: Request, res: Response, next: NextFunction) => {
      const started = process.hrtime.bigint();
      res.on('finish', () => {
        const labels = { endpoint: this.routeLabel(req), method: req.method, status: String(res.statusCode) };
        this.requests.inc(labels);
        this.duration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
      });
      next();
    };
  }

  problem(p: Problem): void {
    this.problems.inc({ type: p.code, status: String(p.status) });
  }
}
