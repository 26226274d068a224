/**
 * Asserts a validation problem response (RFC 9457, vendor category `validation`) naming the field
 * at fault: type and title of the category, the spec's code, the request path as `instance`, the
 * request id as `requestId` and in X-Request-Id, and `errors[0].field`.
 */
export function expectProblem(res: { status: number; headers: Headers; json: any }, status: number, field: string, detail?: RegExp): void {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.json).toMatchObject({ status, category: 'validation', code: 'ValidationFailure', title: 'Validation Failed' });
  expect(res.json.type).toBe('/docs/problems/validation');
  expect(res.json.instance).toMatch(/^\/\S*$/);
  expect(res.json.requestId).toBe(res.headers.get('x-request-id'));
  expect(res.json.detail).toContain(field);
  expect(res.json.errors[0].field).toBe(field);
  if (detail) expect(res.json.detail).toMatch(detail);
}
