import cluster from 'cluster';
import { AggregatorRegistry } from 'prom-client';

/**
 * /metrics of an API run as several worker processes (Node's cluster module): a scrape reaches
 * one worker, which asks the primary, which gathers every worker's registry over IPC and sums
 * them (prom-client's AggregatorRegistry). So a scraper sees the whole API on one port, as it
 * did with one process.
 */

const REQUEST = 'mdq:cluster-metrics?';
const REPLY = 'mdq:cluster-metrics';

interface MetricsRequest {
  type: typeof REQUEST;
  id: number;
}
interface MetricsReply {
  type: typeof REPLY;
  id: number;
  text?: string;
  error?: string;
}

/** In the primary: answer the workers' requests for the aggregated metrics. */
export function serveClusterMetrics(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, msg: MetricsRequest) => {
    if (msg?.type !== REQUEST) return;
    const reply = (r: Omit<MetricsReply, 'type' | 'id'>) => {
      if (worker.isConnected()) worker.send({ type: REPLY, id: msg.id, ...r } satisfies MetricsReply);
    };
    aggregator.clusterMetrics().then(
      (text) => reply({ text }),
      (err: Error) => reply({ error: err.message }),
    );
  });
}

let nextId = 0;

/**
 * In a worker: what its /metrics serves, every worker's metrics summed by the primary. Call once
 * at start: it also makes this worker answer the primary's requests for its own registry
 * (prom-client sets that listener up when an AggregatorRegistry is made).
 */
export function workerMetrics(): (timeoutMs?: number) => Promise<string> {
  new AggregatorRegistry();
  return clusterMetricsText;
}

/** In a worker: every worker's metrics, summed, from the primary (rejects after `timeoutMs`). */
function clusterMetricsText(timeoutMs = 6_000): Promise<string> {
  const id = ++nextId;
  return new Promise((resolve, reject) => {
    const onMessage = (msg: MetricsReply) => {
      if (msg?.type !== REPLY || msg.id !== id) return;
      done();
      if (msg.error !== undefined) reject(new Error(`metrics of the API workers: ${msg.error}`));
      else resolve(msg.text ?? '');
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error('metrics of the API workers: no answer from the primary'));
    }, timeoutMs);
    const done = () => {
      clearTimeout(timer);
      process.off('message', onMessage);
    };
    process.on('message', onMessage);
    process.send!({ type: REQUEST, id } satisfies MetricsRequest);
  });
}
