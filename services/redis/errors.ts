/**
 * An error as a compact log field. ioredis attaches the failed command with every argument to a
 * ReplyError and, for a refused transaction (EXECABORT), every queued command to
 * `previousErrors`: logged as is, one refused 3,000-row chunk is megabytes of log per retry, and
 * the reason (`OOM command not allowed ...`) is not even in the message. So: the message, the
 * distinct reasons of the queued commands' refusals, the command's name, and the stack only for
 * errors that are not Redis replies (a bug, not an outage).
 *
 * The summary has no prototype, so that pino's `err` serializer (which names an error-like object
 * by its constructor) logs `type` as the error's name, not `Object`.
 */
export interface ErrorSummary {
  name: string;
  message: string;
  command?: string;
  reasons?: string[];
  stack?: string;
}

const MAX_REASONS = 5;

export function errorSummary(err: unknown): ErrorSummary {
  const out: ErrorSummary = Object.create(null);
  if (!(err instanceof Error)) return Object.assign(out, { name: typeof err, message: String(err) });
  Object.assign(out, { name: err.name, message: err.message });
  const command = (err as { command?: { name?: unknown } }).command;
  if (command && typeof command.name === 'string') out.command = command.name;
  const previous = (err as { previousErrors?: unknown }).previousErrors;
  if (Array.isArray(previous) && previous.length) {
    out.reasons = [...new Set(previous.map((e) => (e instanceof Error ? e.message : String(e))))].slice(0, MAX_REASONS);
  }
  if (err.name !== 'ReplyError' && err.stack) out.stack = err.stack;
  return out;
}
