import { AggregatorRegistry, Registry } from 'prom-client';
import { ProcessorMetrics } from '../../services/metrics/processor';
import { ProjectorMetrics } from '../../services/metrics/projector';

/**
 * A process with several threads (services/threads/pool.ts) serves the sum of its threads'
 * registries. After a partition moves from one thread to another, only its new owner may report
 * its offset and lag, or the sum would add the old owner's stale gauge to the new one's.
 */
async function summed(...registries: Registry[]): Promise<string[]> {
  const all = await Promise.all(registries.map((r) => r.getMetricsAsJSON()));
  const text = await AggregatorRegistry.aggregate(all).metrics();
  return text.split('\n').filter((l) => l && !l.startsWith('#'));
}

describe('metrics summed across threads', () => {
  it('count a processor partition handed over between threads once (offset, lag) and keep the processed total', async () => {
    const [ra, rb] = [new Registry(), new Registry()];
    const [a, b] = [ProcessorMetrics.for(ra), ProcessorMetrics.for(rb)];
    a.observe('order-flow', 0, 100, 121);
    a.observe('order-flow', 1, 200, 201);
    a.processed.inc({ processor: 'order-flow', partition: '1' }, 200);
    // The group rebalances: partition 1 goes to thread b (processor.ts forgets it on GROUP_JOIN).
    a.forget('order-flow', 1);
    b.observe('order-flow', 1, 260, 301);
    b.processed.inc({ processor: 'order-flow', partition: '1' }, 60);
    const lines = await summed(ra, rb);
    expect(lines.filter((l) => l.startsWith('mdq_processor_input_offset{')).sort()).toEqual([
      'mdq_processor_input_offset{processor="order-flow",partition="0"} 100',
      'mdq_processor_input_offset{processor="order-flow",partition="1"} 260',
    ]);
    expect(lines.filter((l) => l.startsWith('mdq_processor_lag_messages{')).sort()).toEqual([
      'mdq_processor_lag_messages{processor="order-flow",partition="0"} 20',
      'mdq_processor_lag_messages{processor="order-flow",partition="1"} 40',
    ]);
    // A counter is a total over the process's life: both threads' shares add up.
    expect(lines).toContain('mdq_processor_processed_messages_total{processor="order-flow",partition="1"} 260');
  });

  it('count a projector partition handed over between threads once', async () => {
    const [ra, rb] = [new Registry(), new Registry()];
    const [a, b] = [ProjectorMetrics.for(ra), ProjectorMetrics.for(rb)];
    const at = (partition: number) => ({ view: 'order-flow-prints', version: 1, topic: 'order-flow.prints', partition });
    a.observe(at(0), 10, 20);
    a.observe(at(1), 30, 40);
    // The group rebalances: a keeps partition 0 (runner.ts keepOnly on GROUP_JOIN), b takes 1.
    a.keepOnly('order-flow-prints', 1, { 'order-flow.prints': [0] });
    b.observe(at(1), 35, 40);
    const lines = await summed(ra, rb);
    expect(lines.filter((l) => l.startsWith('mdq_projector_applied_offset{')).sort()).toEqual([
      'mdq_projector_applied_offset{view="order-flow-prints",version="1",topic="order-flow.prints",partition="0"} 10',
      'mdq_projector_applied_offset{view="order-flow-prints",version="1",topic="order-flow.prints",partition="1"} 35',
    ]);
  });
});
