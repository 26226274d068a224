import fs from 'fs';
import path from 'path';
import { API_NODE_FLAGS, PROJECTOR_NODE_FLAGS, nodeFlagsFor } from '../../services/node-args';
import { repoRoot } from '../../services/stack/paths';

/**
 * The projector and the API run with the same V8 flags however they are started: npm start, the
 * tests and the benchmarks start them through nodeArgv, the package.json scripts and
 * docker-compose.yml state the flags themselves.
 */
describe('node flags by process', () => {
  it('start the projector with a 128 MB semi-space, the API with 64 MB, and the other processes with the defaults', () => {
    expect(PROJECTOR_NODE_FLAGS).toEqual(['--max-semi-space-size=128']);
    expect(API_NODE_FLAGS).toEqual(['--max-semi-space-size=64']);
    expect(nodeFlagsFor('projections/main.ts')).toEqual(PROJECTOR_NODE_FLAGS);
    expect(nodeFlagsFor('api/main.ts')).toEqual(API_NODE_FLAGS);
    expect(nodeFlagsFor('projections/order-flow-processor/main.ts')).toEqual([]);
    expect(nodeFlagsFor('ingest/worker.ts')).toEqual([]);
  });

  it('are the flags of the package.json scripts and the compose service that run those processes', () => {
    const scripts = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')).scripts as Record<string, string>;
    expect(scripts.projector).toBe(`tsx ${PROJECTOR_NODE_FLAGS.join(' ')} projections/main.ts`);
    expect(scripts.api).toBe(`tsx ${API_NODE_FLAGS.join(' ')} api/main.ts`);
    expect(scripts.processor).toBe('tsx projections/order-flow-processor/main.ts');
    const compose = fs.readFileSync(path.join(repoRoot, 'docker-compose.yml'), 'utf8');
    expect(compose).toContain(`command: ["node", ${PROJECTOR_NODE_FLAGS.map((f) => `"${f}"`).join(', ')}, "--import", "tsx", "projections/main.ts"]`);
    expect(compose).toContain(`command: ["node", ${API_NODE_FLAGS.map((f) => `"${f}"`).join(', ')}, "--import", "tsx", "api/main.ts"]`);
  });
});
