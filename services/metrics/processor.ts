import { Counter, Gauge, Registry } from 'prom-client';
import { onePerRegistry } from './per-registry';

/**
 * Stream-processor progress per (processor, partition): prints turned into derived events and
 * committed, prints replayed into state only (after a crash between a Kafka commit and the state
 * write), the input offset reached and the lag behind the partition's end (from each batch's high
 * watermark, so it costs no extra Kafka calls).
 */
export class ProcessorMetrics {
  readonly processed: Counter<'processor' | 'partition'>;
  readonly replayed: Counter<'processor' | 'partition'>;
  private readonly offset: Gauge<'processor' | 'partition'>;
  private readonly lag: Gauge<'processor' | 'partition'>;

  /** One instance per registry: every runner of the process reports into the same gauges. */
  static readonly for = onePerRegistry((registry) => new ProcessorMetrics(registry));

  private constructor(registry: Registry) {
    const labelNames = ['processor', 'partition'] as const;
    this.processed = new Counter({
      name: 'mdq_processor_processed_messages_total',
      help: 'Input messages processed and committed with their derived events',
      labelNames,
      registers: [registry],
    });
    this.replayed = new Counter({
      name: 'mdq_processor_replayed_messages_total',
      help: 'Input messages replayed into state only (their output was already committed)',
      labelNames,
      registers: [registry],
    });
    this.offset = new Gauge({ name: 'mdq_processor_input_offset', help: 'Last input offset whose effects are committed', labelNames, registers: [registry] });
    this.lag = new Gauge({ name: 'mdq_processor_lag_messages', help: 'Input messages of the partition not yet processed', labelNames, registers: [registry] });
  }

  /** Drops the gauges of a partition this instance no longer holds (another reports it now). */
  forget(processor: string, partition: number): void {
    const labels = { processor, partition: String(partition) };
    this.offset.remove(labels);
    this.lag.remove(labels);
  }

  /** `highWatermark` is the offset the partition's next message will get. */
  observe(processor: string, partition: number, offset: number, highWatermark: number): void {
    const labels = { processor, partition: String(partition) };
    this.offset.set(labels, offset);
    this.lag.set(labels, Math.max(0, highWatermark - 1 - offset));
  }
}
