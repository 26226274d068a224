import type { Config } from '../services/config';
import { createLogger } from '../services/log';
import { runAsThread } from '../services/threads/pool';
import { createProjectors, type ProjectorSettings } from './projectors';
import { projectionByView } from './registry';

/**
 * One projecting thread of a projector process started with MDQ_PROJECTOR_THREADS > 1 (main.ts):
 * the same views as every other thread, each view's runner a member of that view's consumer
 * group, so the threads share the partitions as separate processes would, with the same
 * compare-and-apply exactly once.
 */
export interface ProjectorThreadTask extends ProjectorSettings {
  config: Config;
  thread: number;
  views: string[];
}

runAsThread<ProjectorThreadTask>(async (task) => {
  const log = createLogger('projector', task.config.logLevel).child({ thread: task.thread });
  const projections = task.views.map((v) => projectionByView(v)!);
  const set = createProjectors(task.config, projections, task, log, `mdq-projector-${task.thread}`);
  for (const p of set.projectors) await p.start();
  return set;
});
