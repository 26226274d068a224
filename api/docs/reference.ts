import path from 'path';
import type { Express, NextFunction, Request, RequestHandler, Response } from 'express';
import { allowOnly } from '../request/methods';
import { notFound } from '../request/problem';
import { PROBLEM_CATEGORIES, PROBLEM_DOCS_BASE, PROBLEM_TYPES, ProblemCategory, isProblemCategory, problemCodesOf } from '../request/problem-types';
import { DOC_ASSETS } from './assets';
import { OPENAPI_PATH } from './openapi';

/**
 * The interactive reference at /docs: Swagger UI (swagger-ui-dist), served from node_modules with
 * no network at all. The page loads only this server's files: a Content-Security-Policy forbids
 * any other origin, and the online spec validator badge is switched off. "Authorize" takes a key,
 * "Try it out" sends the request to this server. Also the problem type pages, which problem
 * `type` URIs point at.
 *
 * Why Swagger UI: Redoc has no "try it" console; Scalar's standalone bundle needs ~240 MB of
 * dependencies and its current releases require Node 22. swagger-ui-dist is one folder of static
 * files with full OpenAPI 3.1 support.
 */

const SWAGGER_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));
/** Swagger UI uses inline styles and data: images; scripts, requests and everything else: this origin only. */
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

const PAGE = `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Market Data Query Service — API reference</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
  <link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png" sizes="32x32">
  <style>body { margin: 0; } .swagger-ui .topbar { display: none; }</style>
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>
`;

const INIT = `// Swagger UI over this server's OpenAPI document. validatorUrl: null keeps the page offline
// (the default would ask an online validator for a badge).
window.ui = SwaggerUIBundle({
  url: ${JSON.stringify(OPENAPI_PATH)},
  dom_id: '#swagger-ui',
  deepLinking: true,
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
  persistAuthorization: false,
  displayRequestDuration: true,
  tryItOutEnabled: true,
  defaultModelsExpandDepth: 0,
});
`;

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const md = (s: string) => esc(s).replace(/`([^`]+)`/g, '<code>$1</code>');

function problemPage(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)} — Market Data Query Service</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:50em;margin:2em auto;padding:0 1em}code{background:#f3f3f3;padding:0 .2em}td,th{padding:.2em .8em;text-align:left}</style>
</head><body>${body}<p><a href="/docs">API reference</a> · <a href="/docs/problems">All problem types</a></p></body></html>
`;
}

/** One category's page: the target of every problem `type` of that category, listing its codes. */
function problemCategoryPage(category: ProblemCategory): string {
  const c = PROBLEM_CATEGORIES[category];
  const codes = problemCodesOf(category);
  const rows = codes
    .map(
      (code) =>
        `<tr id="${esc(code)}"><td><code>${esc(code)}</code></td><td>${PROBLEM_TYPES[code].status}</td><td>${md(PROBLEM_TYPES[code].description)}</td></tr>`,
    )
    .join('\n');
  return problemPage(
    c.title,
    `<h1>${esc(c.title)}</h1>
<table><tr><th>type</th><td><code>${esc(PROBLEM_DOCS_BASE + category)}</code></td></tr>
<tr><th>title</th><td>${esc(c.title)}</td></tr></table>
<p>${md(c.description)}</p>
${codes.length ? `<table><tr><th>code</th><th>status</th><th>meaning</th></tr>${rows}</table>` : '<p>No response of this service carries this type today.</p>'}`,
  );
}

function problemIndexPage(): string {
  const rows = (Object.keys(PROBLEM_CATEGORIES) as ProblemCategory[])
    .map((cat) => {
      const statuses = [...new Set(problemCodesOf(cat).map((c) => PROBLEM_TYPES[c].status))].join(', ') || '—';
      const codes =
        problemCodesOf(cat)
          .map((c) => `<code>${esc(c)}</code>`)
          .join(', ') || '—';
      return `<tr><td><a href="${esc(PROBLEM_DOCS_BASE + cat)}">${esc(cat)}</a></td><td>${statuses}</td><td>${esc(PROBLEM_CATEGORIES[cat].title)}</td><td>${codes}</td></tr>`;
    })
    .join('\n');
  return problemPage(
    'Problem types',
    `<h1>Problem types</h1><p>Every error of the API is an <code>application/problem+json</code> body (RFC 9457) whose <code>type</code> is one of these categories; the <code>code</code> member names the error within it.</p><table><tr><th>type</th><th>status</th><th>title</th><th>codes</th></tr>${rows}</table>`,
  );
}

function html(res: Response, page: string): void {
  res.setHeader('Content-Security-Policy', CSP);
  res.type('text/html; charset=utf-8').send(page);
}

/** Mounts /docs and /docs/*; `limit` is the per-address quota (no key is needed to read the reference). */
export function mountReference(app: Express, limit: RequestHandler): void {
  app.use('/docs', limit);
  app.get('/docs', (_req, res) => html(res, PAGE));
  app.get('/docs/init.js', (_req, res) => {
    res.type('text/javascript; charset=utf-8').send(INIT);
  });
  app.get('/docs/assets/:file', (req: Request, res: Response, next: NextFunction) => {
    const file = req.params.file as string;
    const type = Object.prototype.hasOwnProperty.call(DOC_ASSETS, file) ? DOC_ASSETS[file] : undefined;
    if (!type) return next(notFound(`No documentation asset named ${file.slice(0, 100)}`));
    res.sendFile(file, { root: SWAGGER_DIR, maxAge: '1h', headers: { 'Content-Type': type } }, (err) => err && next(err));
  });
  app.get('/docs/problems', (_req, res) => html(res, problemIndexPage()));
  app.get('/docs/problems/:type', (req: Request, res: Response) => {
    const type = req.params.type as string;
    if (!isProblemCategory(type)) throw notFound(`No problem type named ${type.slice(0, 100)}; see /docs/problems`);
    html(res, problemCategoryPage(type));
  });
  for (const p of ['/docs', '/docs/init.js', '/docs/assets/:file', '/docs/problems', '/docs/problems/:type']) allowOnly(app, p, ['GET', 'HEAD']);
}
