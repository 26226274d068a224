import { Problem } from '../../api/request/problem';

/** Runs fn and returns the 400 Problem it must throw, checking the field it names. */
export function expectInvalid(fn: () => unknown, field: string, messagePart?: string | RegExp): Problem {
  let thrown: unknown;
  try {
    fn();
  } catch (err) {
    thrown = err;
  }
  if (!(thrown instanceof Problem)) throw new Error(`expected a Problem, got ${thrown === undefined ? 'no error' : String(thrown)}`);
  expect(thrown.status).toBe(400);
  expect(thrown.code).toBe('ValidationFailure');
  expect(thrown.errors?.[0]?.field).toBe(field);
  if (messagePart) expect(thrown.message).toMatch(messagePart);
  return thrown;
}
