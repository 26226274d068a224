import { PROBLEM_TYPES, problemTypeUri, type ProblemCode } from '../../api/request/problem-types';

/**
 * Asserts a non-validation problem response (the spec's 422 data-unavailable errors, 500
 * LevelsUnavailable): status, media type, the catalog's code, category and type URI, and a detail
 * matching `detail`. Type and category come from the catalog, so the assertion follows it.
 */
export function expectDataProblem(res: { status: number; headers: Headers; json: any }, code: ProblemCode, detail: RegExp): void {
  const t = PROBLEM_TYPES[code];
  expect(res.status).toBe(t.status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.json).toMatchObject({ status: t.status, code, category: t.category, type: problemTypeUri(code) });
  expect(res.json.detail).toMatch(detail);
}
