import pino from 'pino';

/** Structured JSON logs on stdout, one logger per process, named for the process role. */
export function createLogger(name: string, level = process.env.LOG_LEVEL ?? 'info'): pino.Logger {
  return pino({ name, level, base: { proc: name } });
}
export type Logger = pino.Logger;
