import express from 'express';
import path from 'path';

/** Where the console's static files are (no build step: plain HTML, CSS and one ES module). */
export const CONSOLE_DIR = path.join(__dirname, 'public');

/**
 * The web console at /console: static files only. It signs in with an API key kept in the
 * browser's session storage and reads the public endpoints and push streams like any client.
 */
export function mountConsole(app: express.Express): void {
  app.get('/console', (req, res, next) => {
    // A relative asset path needs the trailing slash.
    if (req.path === '/console') return res.redirect(301, '/console/');
    next();
  });
  app.use('/console', express.static(CONSOLE_DIR, { index: 'index.html', maxAge: '5m', redirect: false }));
}
