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
 * the costlier old-generation GC (24 % of its CPU profile). Measured on the prints view's replay
 * (45 s windows, alternating, the same hour; README): 23,896-24,220 rows/s with 27.4-28.0 µs of
 * projector CPU per row by default, 24,478-26,078 rows/s with 21.2-26.9 µs at 128 MB; Redis is
 * then the limit. The cost is memory: up to three semi-spaces (384 MB).
 *
 * Not the order-flow processor: the same flag left its CPU per print unchanged (24,265-25,410
 * prints per CPU-second against 25,150-25,487, bench:processor, the same hour) and added
 * 180-330 MiB of RSS.
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
 * that was ~50 scavenges a second of ~5 ms each (0.21 ms of GC per request, `--trace-gc`). At
 * 64 MB there are a quarter as many, of ~11 ms (0.16 ms per request). Measured side by side
 * (`bench:api-cost -- --ab --b-node-args ...`, both processes answering the same requests at the
 * same time; README): 2.7-7.2 % less CPU per page of 50 over two runs, 18-19 % on the query that decodes the most
 * rows. The cost is memory: up to three semi-spaces (192 MB), and a scavenge's pause doubles.
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
