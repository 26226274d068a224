import { Command } from 'ioredis';
import { RespBatch } from '../../services/redis/encoded-command';

/** The wire form ioredis itself gives a command: the reference our encoding must equal byte for byte. */
function ioredisWire(args: (string | Buffer)[]): Buffer {
  const [name, ...rest] = args as [string, ...(string | Buffer)[]];
  const c = new Command(name, rest);
  // What Redis#sendCommand does before writing: find Buffer arguments (buffer mode).
  (c as unknown as { stringifyArguments(): void }).stringifyArguments();
  const w = c.toWritable(undefined as never);
  return typeof w === 'string' ? Buffer.from(w, 'utf8') : w;
}

const client = { options: {} };

describe('RespBatch (our RESP encoding of a transaction’s commands)', () => {
  const cases: [string, (string | Buffer)[]][] = [
    ['a single-digit array', ['zadd', 'k', '0', 'm']],
    ['index members', ['zadd', '{mdq:7}:2026-11-20:x:time', '0', 'n80000190a5b5ac00:07000001ab', '0', 'n80000190a5b5ac01:07000001ac']],
    ['an empty string and an empty Buffer', ['hset', 'k', '', Buffer.alloc(0)]],
    ['binary values (stored rows)', ['hset', 'k', 'f1', Buffer.from([0x93, 0x0d, 0x0a, 0x00, 0xff]), 'f2', Buffer.from('x')]],
    ['non-ASCII text (2-, 3- and 4-byte UTF-8)', ['hset', 'k', 'é', 'Ω€', 'x𝄞y', 'ascii then ü']],
    ['lengths of 10, 100 and 10,000 bytes', ['set', 'a'.repeat(10), 'b'.repeat(100), 'c'.repeat(10_000)]],
    ['a long variadic call', ['zadd', 'k', ...Array.from({ length: 4_000 }, (_, i) => (i % 2 ? `m${i}` : '0'))]],
  ];

  it.each(cases)('encodes %s exactly as ioredis does', (_, args) => {
    expect(new RespBatch(client).encode(args).equals(ioredisWire(args))).toBe(true);
  });

  it('encodes from an offset into the array (a RedisOp with a prefix) and keeps earlier commands intact', () => {
    const batch = new RespBatch(client);
    const first = batch.encode(['hset', 'k', 'f', 'v']);
    const firstCopy = Buffer.from(first);
    const second = batch.encode(['ignored', 'zadd', 'k2', '0', 'm'], 1);
    expect(second.equals(ioredisWire(['zadd', 'k2', '0', 'm']))).toBe(true);
    expect(first.equals(firstCopy)).toBe(true);
  });

  it('starts a new segment when a command does not fit, each command contiguous', () => {
    const batch = new RespBatch(client);
    const big = 'z'.repeat(700_000);
    const a = batch.encode(['set', 'a', big]);
    const b = batch.encode(['set', 'b', big]); // does not fit in the rest of the first 1 MB segment
    const c = batch.encode(['set', 'c', 'x'.repeat(3 * 1024 * 1024)]); // larger than a segment
    expect(a.equals(ioredisWire(['set', 'a', big]))).toBe(true);
    expect(b.equals(ioredisWire(['set', 'b', big]))).toBe(true);
    expect(c.equals(ioredisWire(['set', 'c', 'x'.repeat(3 * 1024 * 1024)]))).toBe(true);
  });

  it('gives ioredis a command named in lower case, carrying the key and the encoded bytes', () => {
    const cmd = new RespBatch(client).command(['ZADD', 'key', '0', 'm']);
    expect(cmd.name).toBe('zadd');
    expect(cmd.args).toEqual(['key']);
    expect(Buffer.from(cmd.toWritable(undefined as never)).equals(ioredisWire(['ZADD', 'key', '0', 'm']))).toBe(true);
  });

  it('refuses a client with a keyPrefix (its keys would not be prefixed) and a command without a name and key', () => {
    expect(() => new RespBatch({ options: { keyPrefix: 'p:' } })).toThrow(/keyPrefix/);
    expect(() => new RespBatch(client).command(['zadd'])).toThrow(/name and a string key/);
    expect(() => new RespBatch(client).command(['hset', Buffer.from('k'), 'f', 'v'])).toThrow(/name and a string key/);
  });
});
