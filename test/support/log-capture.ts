import { Writable } from 'stream';
import pino from 'pino';
import type { Logger } from '../../services/log';

/** A pino logger (as the API process makes one) that keeps every line, for tests of what is logged. */
export function captureLogs(level = 'info'): { log: Logger; text: () => string; lines: () => Record<string, any>[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      chunks.push(chunk.toString('utf8'));
      cb();
    },
  });
  const log = pino({ name: 'api', level, base: { proc: 'api' } }, stream);
  const text = () => chunks.join('');
  return {
    log,
    text,
    lines: () =>
      text()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, any>),
  };
}
