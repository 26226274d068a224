import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { EndpointDef } from '../../api/request/endpoint';

const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));

/** Asserts that a real response body matches the endpoint's documented response schema (OpenAPI). */
export function expectDocumentedResponse(def: EndpointDef, body: unknown): void {
  const validate = ajv.compile(def.responseSchema);
  expect(validate(body) ? null : validate.errors).toBeNull();
}
