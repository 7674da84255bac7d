import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { Services } from '../services/services.js';
import { sendAsIs } from './compression.js';
import { pageHandlerOf } from './page.js';
import { labelRoute } from './request-metrics.js';
import { pages } from './routes/site/index.js';

/** Paths of the site pages and files (GET only), for the 405 answers. */
export const SITE_PATHS = [
  '/',
  '/providers/:id',
  '/openapi.json',
  '/verify/:id',
  '/docs',
  '/docs/errors',
  '/llms.txt',
  '/schemas/approved-inputs.json',
  '/schemas/computation-package.json',
  '/methodology',
  '/assets/site.css',
  '/assets/chart.css',
  '/assets/docs.js',
  '/assets/favicon.svg',
];

/** Static files: apps/api/assets (from src/http or dist/http alike) and the Swagger UI distribution. */
const ASSETS_DIR = fileURLToPath(new URL('../../assets/', import.meta.url));
const SWAGGER_DIR = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
/** Only what the reference page loads (and the bundle's source maps); not the sample index.html. */
const SWAGGER_FILES = new Set([
  '/swagger-ui.css',
  '/swagger-ui.css.map',
  '/swagger-ui-bundle.js',
  '/swagger-ui-bundle.js.map',
  '/favicon-16x16.png',
  '/favicon-32x32.png',
]);

/** Files of the site itself, in apps/api/assets. */
const SITE_ASSETS = new Set(['/site.css', '/docs.js', '/favicon.svg']);

/**
 * Serves the listed files of a folder (GET and HEAD); anything else falls through to the API's 404 or 405. With
 * metrics on, a file served is counted under `route` (its folder's template), not its own path.
 */
function serveFiles(dir: string, files: ReadonlySet<string>, maxAge: string, route: string | null) {
  const serve = express.static(dir, { index: false, redirect: false, fallthrough: true, maxAge });
  return (req: Request, res: Response, next: NextFunction): void => {
    if (files.has(req.path)) {
      if (route !== null) labelRoute(res, route);
      sendAsIs(res);
      serve(req, res, next);
    } else next();
  };
}

/**
 * The site besides the API: its pages (routes/site/, each through admission, parse, its work and its reply, as the
 * API's routes; page.ts) and its static files (the site's own under apps/api/assets, and Swagger UI's).
 */
export function registerSitePages(app: Express, services: Services): void {
  const counted = (route: string) => (services.metrics ? route : null);
  app.use('/assets/swagger-ui', serveFiles(SWAGGER_DIR, SWAGGER_FILES, '1d', counted('/assets/swagger-ui/{file}')));
  app.use('/assets', serveFiles(ASSETS_DIR, SITE_ASSETS, '1h', counted('/assets/{file}')));
  for (const page of pages) app.get(page.path, pageHandlerOf(page, services));
}
