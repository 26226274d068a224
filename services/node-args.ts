import path from 'path';
import { repoRoot } from './stack/paths';

/**
 * Node/V8 flags of the long-running processes that need their own, wherever they are started:
 * `npm start` (services/cli/start.ts), the tests and benchmarks (test/support/pipeline.ts spawnTs,
 * bench:processor, bench:queries, bench:api-cost), the package.json scripts `projector` and `api`
 * and docker-compose.yml's services of the same names (which state the same flags; a unit test
 * keeps them equal).
 */

/**
 * The projector: a larger young generation. It holds each partition's fetched batch (decoded rows,
 * their stored form, index members, the chunk's writes) across the awaits of its lane, so with
 * V8's default 16 MB semi-space much of it survived a scavenge and was promoted, then collected by
 * the costlier old-generation GC. At 128 MB the projector spends less CPU per row on a replay
 * (docs/benchmarks.md), and Redis is then the limit. The cost is memory: up to three semi-spaces
 * (384 MB).
 *
 * Not the order-flow processor: there the same flag left the CPU per print unchanged and only
 * added memory.
 */
export const PROJECTOR_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=128'];
/**
 * The same for each thread of a projector started with MDQ_PROJECTOR_THREADS > 1 (worker threads
 * take their heap limits from resourceLimits): the young generation is three semi-spaces.
 */
export const PROJECTOR_YOUNG_GENERATION_MB = 3 * 128;

/**
 * The API: a 64 MB semi-space. With 32 requests in flight, each holds its decoded rows and Redis
 * replies across its awaits, so every scavenge copies them; with V8's default 16 MB semi-space
 * scavenges often; at 64 MB there are a quarter as many and the API uses less CPU per request
 * (`bench:api-cost -- --ab --b-node-args ...`, docs/benchmarks.md). The cost is memory: up to
 * three semi-spaces (192 MB), and a scavenge's pause doubles.
 */
export const API_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=64'];

/** By entry point, relative to the repository root. */
const FLAGS_BY_SCRIPT = new Map<string, readonly string[]>([
  ['projections/main.ts', PROJECTOR_NODE_FLAGS],
  ['api/main.ts', API_NODE_FLAGS],
]);

/** The node flags to start `script` (a path relative to the repository root) with. */
export function nodeFlagsFor(script: string): readonly string[] {
  return FLAGS_BY_SCRIPT.get(script) ?? [];
}

/**
 * `node <its flags> <extra flags> --import tsx <script> ...args`: the TypeScript runs in that one
 * process, so signals reach it directly. `script` is relative to the repository root, or to
 * `root` (another checkout, for a benchmark's side-by-side run).
 */
export function nodeArgv(script: string, args: readonly string[] = [], extraFlags: readonly string[] = [], root = repoRoot): string[] {
  return [...nodeFlagsFor(script), ...extraFlags, '--import', 'tsx', path.join(root, script), ...args];
}
