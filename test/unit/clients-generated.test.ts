import { execFile } from 'child_process';
import fs from 'fs';
import os from 'os';
import path from 'path';
import { openApiDocument } from '../../scripts/generate-clients';
import { nodeArgv } from '../../services/node-args';
import { repoRoot } from '../../services/stack/paths';

/**
 * The TypeScript client's types are generated (`npm run clients`), never edited: the checked-in
 * clients/typescript/src/schema.ts must be what the current OpenAPI document generates, so an
 * endpoint added or changed without regenerating fails here. The generator runs as its own
 * process (openapi-typescript loads ES modules, which jest's module system cannot).
 */

function check(documentFile?: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      nodeArgv('scripts/generate-clients.ts', ['--check', ...(documentFile ? [documentFile] : [])]),
      { cwd: repoRoot },
      (err, stdout, stderr) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr }),
    );
  });
}

it('the checked-in TypeScript client is what the current OpenAPI document generates', async () => {
  expect(await check()).toEqual({ code: 0, out: expect.stringContaining('is up to date') });
}, 60_000);

it('the check fails when the document changes and the client is not regenerated', async () => {
  const doc = openApiDocument() as { paths: Record<string, { post?: { summary?: string } }> };
  doc.paths['/v1/options/tool/max-pain'].post!.summary = 'Changed without regenerating.';
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mdq-clients-')), 'openapi.json');
  fs.writeFileSync(file, JSON.stringify(doc));
  const r = await check(file);
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
  expect(r.code).toBe(1);
  expect(r.out).toMatch(/differs from what the OpenAPI document generates[\s\S]*Changed without regenerating/);
}, 60_000);
