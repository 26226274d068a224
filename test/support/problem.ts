/** Asserts a ValidationFailure problem response (RFC 9457) naming the field at fault. */
export function expectProblem(res: { status: number; headers: Headers; json: any }, status: number, field: string, detail?: RegExp): void {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.json).toMatchObject({ status, category: 'validation', code: 'ValidationFailure', title: 'Validation failure' });
  expect(res.json.type).toBe('/docs/problems/validation-failure');
  expect(res.json.instance).toBe(res.headers.get('x-request-id'));
  expect(res.json.detail).toContain(field);
  expect(res.json.errors[0].field).toBe(field);
  if (detail) expect(res.json.detail).toMatch(detail);
}
