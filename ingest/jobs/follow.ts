import cliProgress from 'cli-progress';
import type { Job, Queue } from 'bullmq';

export interface Followed {
  completed: Job[];
  failed: Job[];
}

interface JobProgress {
  done: number;
  total: number;
  events: number;
}

function isProgress(x: unknown): x is JobProgress {
  return typeof x === 'object' && x !== null && 'done' in x && 'total' in x;
}

/**
 * Follows jobs until each has completed or failed for good, drawing one progress bar over all of
 * them (chunks done / chunks total, events produced). Without a terminal it prints a line every
 * few seconds instead. Polling job state (rather than only listening to queue events) means a job
 * that finished before we started listening is still noticed.
 */
export async function followJobs(queue: Queue, ids: string[], label: string): Promise<Followed> {
  const tty = Boolean(process.stderr.isTTY);
  const bar = new cliProgress.SingleBar(
    { format: `${label} [{bar}] {percentage}% | {value}/{total} chunks | {events} events | {jobs} | eta {eta_formatted}`, hideCursor: true, etaBuffer: 50 },
    cliProgress.Presets.shades_classic,
  );
  const pending = new Set(ids);
  const progress = new Map<string, JobProgress>();
  const out: Followed = { completed: [], failed: [] };
  if (tty) bar.start(1, 0, { events: 0, jobs: '' });
  let lastLine = 0;
  for (;;) {
    for (const id of [...pending]) {
      const job = await queue.getJob(id);
      if (!job) {
        pending.delete(id);
        continue;
      }
      if (isProgress(job.progress)) progress.set(id, job.progress);
      const state = await job.getState();
      if (state === 'completed') {
        pending.delete(id);
        out.completed.push(job);
      } else if (state === 'failed') {
        pending.delete(id);
        out.failed.push(job);
      }
    }
    let done = 0;
    let total = 0;
    let events = 0;
    for (const p of progress.values()) {
      done += p.done;
      total += p.total;
      events += p.events;
    }
    const jobs = `${ids.length - pending.size}/${ids.length} jobs${out.failed.length ? `, ${out.failed.length} failed` : ''}`;
    if (tty) {
      bar.setTotal(Math.max(1, total));
      bar.update(done, { events, jobs });
    } else if (Date.now() - lastLine > 3_000 || !pending.size) {
      lastLine = Date.now();
      console.error(`${label}: ${done}/${total} chunks, ${events} events, ${jobs}`);
    }
    if (!pending.size) break;
    await new Promise((r) => setTimeout(r, 400));
  }
  if (tty) bar.stop();
  return out;
}
