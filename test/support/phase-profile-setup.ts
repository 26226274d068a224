import fs from 'fs';
import path from 'path';
import { ChunkWriter } from '../../ingest/produce/chunk-writer';
import { ViewProjector } from '../../projections/runtime/view-projector';
import { EventProducer } from '../../services/kafka/producer';
import { phase, phaseDir, totals } from './phase-profile';

// Runs before each integration file (setupFilesAfterEnv): times the file's load and counts the
// calls every file makes through the shared classes as their phases (phase-profile.ts).
const loadedAt = Date.now();

function wrap<T extends object>(proto: T, method: keyof T & string, name: string): void {
  const original = proto[method] as unknown as (...args: unknown[]) => Promise<unknown>;
  (proto as Record<string, unknown>)[method] = function (this: unknown, ...args: unknown[]) {
    return phase(name, () => original.apply(this, args));
  };
}

if (phaseDir) {
  const dir = phaseDir;
  wrap(ChunkWriter.prototype, 'commit', 'produce');
  wrap(EventProducer.prototype, 'send', 'produce');
  wrap(ViewProjector.prototype, 'start', 'projector start');
  let firstHook = 0;
  beforeAll(() => {
    firstHook = Date.now();
  });
  afterAll(() => {
    const file = path.relative(process.cwd(), expect.getState().testPath ?? 'unknown');
    const record = { file, load: firstHook - loadedAt, phases: Object.fromEntries(totals) };
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `${file.replace(/[/\\]/g, '_')}.json`), JSON.stringify(record));
  });
}
