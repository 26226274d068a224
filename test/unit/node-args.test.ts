import fs from 'fs';
import path from 'path';
import { PROJECTOR_NODE_FLAGS, nodeFlagsFor } from '../../services/node-args';
import { repoRoot } from '../../services/stack/paths';

/**
 * The projector runs with the same V8 flags however it is started: npm start, the tests and the
 * benchmarks start it through nodeArgv, the package.json script and docker-compose.yml state the flags themselves.
 */
describe('node flags by process', () => {
  it('start the projector with a 128 MB semi-space, and the other processes with the defaults', () => {
    expect(PROJECTOR_NODE_FLAGS).toEqual(['--max-semi-space-size=128']);
    expect(nodeFlagsFor('projections/main.ts')).toEqual(PROJECTOR_NODE_FLAGS);
    expect(nodeFlagsFor('projections/order-flow-processor/main.ts')).toEqual([]);
    expect(nodeFlagsFor('api/main.ts')).toEqual([]);
    expect(nodeFlagsFor('ingest/worker.ts')).toEqual([]);
  });

  it('are the flags of the package.json scripts and the compose service that run those processes', () => {
    const scripts = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')).scripts as Record<string, string>;
    expect(scripts.projector).toBe(`tsx ${PROJECTOR_NODE_FLAGS.join(' ')} projections/main.ts`);
    expect(scripts.processor).toBe('tsx projections/order-flow-processor/main.ts');
    const compose = fs.readFileSync(path.join(repoRoot, 'docker-compose.yml'), 'utf8');
    expect(compose).toContain(`command: ["node", ${PROJECTOR_NODE_FLAGS.map((f) => `"${f}"`).join(', ')}, "--import", "tsx", "projections/main.ts"]`);
  });
});
