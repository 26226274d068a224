import { Gauge, Registry } from 'prom-client';
import { onePerRegistry } from './per-registry';

export interface PartitionLabels {
  view: string;
  version: number;
  topic: string;
  partition: number;
}

/**
 * Projector progress per (view, version, topic, partition): the Kafka offset whose effects the
 * Redis view holds, and how many messages the partition has beyond it (lag). Recorded by the
 * projector runtime on every batch, from the batch's high watermark, so it costs no extra calls.
 */
export class ProjectorMetrics {
  private readonly applied: Gauge<'view' | 'version' | 'topic' | 'partition'>;
  private readonly lag: Gauge<'view' | 'version' | 'topic' | 'partition'>;
  private readonly seen = new Map<string, Set<string>>();

  /** One instance per registry: every runner of the process reports into the same gauges. */
  static readonly for = onePerRegistry((registry) => new ProjectorMetrics(registry));

  private constructor(registry: Registry) {
    const labelNames = ['view', 'version', 'topic', 'partition'] as const;
    this.applied = new Gauge({
      name: 'mdq_projector_applied_offset',
      help: 'Last Kafka offset applied to the Redis view (-1: none yet)',
      labelNames,
      registers: [registry],
    });
    this.lag = new Gauge({
      name: 'mdq_projector_lag_messages',
      help: 'Messages in the partition not yet applied to the view',
      labelNames,
      registers: [registry],
    });
  }

  /** `highWatermark` is the offset the next message will get (Kafka's high watermark). */
  observe(l: PartitionLabels, applied: number, highWatermark: number): void {
    const labels = { view: l.view, version: String(l.version), topic: l.topic, partition: String(l.partition) };
    this.applied.set(labels, applied);
    this.lag.set(labels, Math.max(0, highWatermark - 1 - applied));
    const key = `${l.view}/${l.version}`;
    let set = this.seen.get(key);
    if (!set) this.seen.set(key, (set = new Set()));
    set.add(JSON.stringify(labels));
  }

  /**
   * Keeps only the series of the partitions now assigned to this runner (a group join): a
   * partition handed to another member is reported by that member from now on. Without this, a
   * process whose threads' metrics are summed (MDQ_PROJECTOR_THREADS) added the stale applied
   * offset of the thread that lost a partition to that of the thread that took it.
   */
  keepOnly(view: string, version: number, assignment: Readonly<Record<string, readonly number[]>>): void {
    const set = this.seen.get(`${view}/${version}`);
    if (!set) return;
    for (const s of [...set]) {
      const labels = JSON.parse(s) as Record<string, string>;
      if (assignment[labels.topic]?.includes(Number(labels.partition))) continue;
      this.applied.remove(labels);
      this.lag.remove(labels);
      set.delete(s);
    }
  }

  /** Drops the series of a view version whose runner stopped (after a rebuild flipped past it). */
  forget(view: string, version: number): void {
    this.keepOnly(view, version, {});
    this.seen.delete(`${view}/${version}`);
  }
}
