/**
 * The ceiling of this stack for bench:endpoints: a bare Express handler that reads the request
 * body (express.json, as every handler must) and answers with bytes captured from the API, in
 * `BARE_WORKERS` worker processes of the Node cluster module, as the API runs its workers.
 *
 *   BARE_RESPONSES=answers.json BARE_WORKERS=2 PORT=18600 npx tsx test/bench/bare-server.ts
 *
 * answers.json is an array of { contentType, base64 }; POST /bare/<i> answers entry i. Anything
 * the API does beyond this (authentication, quota, validation, reading views, serializing) is
 * what the ratio API ÷ bare measures.
 */
import cluster from 'cluster';
import fs from 'fs';
import express from 'express';

const workers = Number(process.env.BARE_WORKERS ?? 1);
const port = Number(process.env.PORT ?? 18600);

if (cluster.isPrimary) {
  for (let i = 0; i < workers; i++) cluster.fork();
  // A worker that dies would make the ceiling look lower than it is: stop, do not limp on.
  cluster.on('exit', (w, code) => {
    if (!stopping) {
      console.error(`bare-server: worker ${w.process.pid} exited with ${code}`);
      process.exit(1);
    }
  });
  let stopping = false;
  const stop = () => {
    stopping = true;
    for (const w of Object.values(cluster.workers ?? {})) w?.kill('SIGTERM');
    setTimeout(() => process.exit(0), 2_000).unref();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
} else {
  const answers = (JSON.parse(fs.readFileSync(process.env.BARE_RESPONSES!, 'utf8')) as { contentType: string; base64: string }[]).map((a) => ({
    contentType: a.contentType,
    bytes: Buffer.from(a.base64, 'base64'),
  }));
  const app = express();
  // The API's own settings (api/app.ts): no X-Powered-By, no ETag over each answer.
  app.disable('x-powered-by');
  app.set('etag', false);
  app.post('/bare/:i', express.json({ limit: '1mb' }), (req, res) => {
    const a = answers[Number(req.params.i)];
    if (!a) return void res.status(404).end();
    res.set('Content-Type', a.contentType).send(a.bytes);
  });
  app.listen(port, '127.0.0.1');
}
