import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  asOfProblem,
  buildOpenApiDocument,
  type Deprecations,
  PlannerTypeSchema,
  RiskBandSchema,
  RiskIndicatorIdSchema,
  UuidSchema,
} from '@svc/contracts';
import {
  approvedInputsJsonSchema,
  computationPackageJsonSchema,
  type Framework,
  jsonSchemaText,
  showControls,
} from '@svc/methodology';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { CHART_CSS } from '../pages/chart.js';
import { apiReferencePage, errorsPage } from '../pages/docs.js';
import { llmsTxt } from '../pages/llms.js';
import { methodologyPage } from '../pages/methodology.js';
import {
  badRequestPage,
  providerNotFoundPage,
  providerPage,
  type RatingsFilter,
  ratingsPage,
} from '../pages/ratings.js';
import { notPublishedPage, unavailablePage, verifyPage } from '../pages/verify.js';
import { servableInstant } from '../services/as-of.js';
import { frameworkInForce, knownVersionOf } from '../services/frameworks.js';
import { providerView } from '../services/provider-page.js';
import { ageSeconds, newestScoredAt, strongEtag } from '../services/public-snapshot.js';
import { publishedIndicator } from '../services/scores.js';
import { contextFor, type Services } from '../services/services.js';
import { isStoreUnavailable } from '../store/store.js';
import { sendAsIs } from './compression.js';
import { deprecationsOf } from './deprecation.js';
import { siteUrlOf } from './problem.js';
import { labelRoute } from './request-metrics.js';

/** Paths of the site pages (GET only), for the 405 answers. */
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

const directives = (d: Record<string, string>) =>
  Object.entries(d)
    .map(([name, value]) => `${name} ${value}`)
    .join('; ');

const FRAME = { 'base-uri': "'none'", 'form-action': "'none'", 'frame-ancestors': "'none'" };

/** The site's own pages: no script at all, styles and images from this service only. */
export const PAGE_CSP = directives({
  'default-src': "'none'",
  'script-src': "'none'",
  'style-src': "'self'",
  'img-src': "'self'",
  ...FRAME,
});

/** The pages with the as_of form (a GET to the page itself): the site's policy, forms sent to this service only. */
export const FORM_PAGE_CSP = directives({
  'default-src': "'none'",
  'script-src': "'none'",
  'style-src': "'self'",
  'img-src': "'self'",
  ...FRAME,
  'form-action': "'self'",
});

/**
 * The API reference. Scripts stay 'self' only (the bundle and /assets/docs.js are files, nothing inline),
 * but Swagger UI (React) sets `style` attributes on its elements, which CSP counts as inline styles, so
 * style-src needs 'unsafe-inline'; its stylesheet draws icons from data: URIs, hence img-src data:; and it
 * fetches /openapi.json (and "try it out" calls the API) with fetch, hence connect-src.
 */
export function docsCsp(siteUrl: string | null): string {
  const api = siteUrl ? ` ${new URL(siteUrl).origin}` : '';
  return directives({
    'default-src': "'none'",
    'script-src': "'self'",
    'style-src': "'self' 'unsafe-inline'",
    'img-src': "'self' data:",
    'connect-src': `'self'${api}`,
    ...FRAME,
  });
}

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

function sendHtml(res: Response, status: number, body: string, csp: string, cache: string): void {
  res.status(status);
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Content-Security-Policy', csp);
  res.setHeader('Cache-Control', cache);
  res.end(body);
}

/** A fixed text served as it is (a JSON Schema, the charts' styles): its bytes and their strong ETag. */
interface FixedFile {
  bytes: Buffer;
  etag: string;
}

const fixedFile = (text: string): FixedFile => {
  const bytes = Buffer.from(text, 'utf8');
  return { bytes, etag: strongEtag(bytes) };
};

/** The package's schema is the same for every framework; the inputs' is built once per framework in force. */
let packageSchema: FixedFile | undefined;
const inputsSchemas = new WeakMap<Framework, FixedFile>();

function inputsSchemaOf(framework: Framework): FixedFile {
  let file = inputsSchemas.get(framework);
  if (!file) {
    file = fixedFile(jsonSchemaText(approvedInputsJsonSchema(framework)));
    inputsSchemas.set(framework, file);
  }
  return file;
}

/** A JSON Schema (public, cacheable, readable from any origin); 304 when If-None-Match names its ETag (compression.ts). */
function sendSchema(res: Response, file: FixedFile): void {
  res.setHeader('Access-Control-Allow-Origin', '*');
  sendFixed(res, file, 'application/schema+json', 'public, max-age=300');
}

/** A fixed file with its ETag; 304 when If-None-Match names it (compression.ts). */
function sendFixed(res: Response, file: FixedFile, contentType: string, cache: string): void {
  res.setHeader('ETag', file.etag);
  res.setHeader('Cache-Control', cache);
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', file.bytes.length);
  res.end(file.bytes);
}

/**
 * The pages the service serves besides the API: the OpenAPI document, the reference, llms.txt, the JSON Schemas,
 * verification pages.
 */
export function registerSitePages(app: Express, services: Services): void {
  const documents = new Map<string, string>();
  app.get('/openapi.json', (req: Request, res: Response) => {
    const site = siteUrlOf(req);
    let text = documents.get(site);
    if (!text) {
      // An endpoint's name in the contract is its operationId.
      const deprecations = Object.fromEntries(deprecationsOf(app)) as Deprecations;
      text = JSON.stringify(buildOpenApiDocument({ serverUrl: site, deprecations }));
      documents.set(site, text);
    }
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.end(text);
  });

  const counted = (route: string) => (services.metrics ? route : null);
  app.use('/assets/swagger-ui', serveFiles(SWAGGER_DIR, SWAGGER_FILES, '1d', counted('/assets/swagger-ui/{file}')));
  // The charts' styles are one text with the memos' inline copy (pages/chart.ts), served like the site's files.
  const chartCss = fixedFile(CHART_CSS);
  app.get('/assets/chart.css', (_req: Request, res: Response) => {
    sendFixed(res, chartCss, 'text/css; charset=utf-8', 'public, max-age=3600');
  });
  app.use('/assets', serveFiles(ASSETS_DIR, SITE_ASSETS, '1h', counted('/assets/{file}')));

  app.get('/docs', (_req: Request, res: Response) => {
    sendHtml(res, 200, apiReferencePage(), docsCsp(services.siteUrl), 'public, max-age=300');
  });

  app.get('/docs/errors', (req: Request, res: Response) => {
    sendHtml(res, 200, errorsPage(siteUrlOf(req)), PAGE_CSP, 'public, max-age=300');
  });

  app.get('/llms.txt', async (req: Request, res: Response) => {
    const framework = await frameworkInForce(services);
    res.setHeader('Content-Type', 'text/plain; charset=utf-8');
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.end(llmsTxt(siteUrlOf(req), framework, deprecationsOf(app)));
  });

  // The documents the service accepts now are those of the framework in force; docs/schemas/ holds the current one's.
  app.get('/schemas/approved-inputs.json', async (_req: Request, res: Response) => {
    sendSchema(res, inputsSchemaOf(await frameworkInForce(services)));
  });

  app.get('/schemas/computation-package.json', (_req: Request, res: Response) => {
    packageSchema ??= fixedFile(jsonSchemaText(computationPackageJsonSchema()));
    sendSchema(res, packageSchema);
  });

  app.get('/methodology', async (_req: Request, res: Response) => {
    sendHtml(res, 200, methodologyPage(await frameworkInForce(services)), PAGE_CSP, 'public, max-age=300');
  });

  app.get('/', async (req: Request, res: Response, next: NextFunction) => {
    const filter = ratingsFilterOf(req.query);
    const asOf = asOfOf(req.query, services.clock.now());
    if (typeof filter === 'string' || (asOf !== null && typeof asOf === 'object')) {
      const problem = typeof filter === 'string' ? filter : (asOf as { problem: string }).problem;
      sendHtml(res, 400, badRequestPage(problem), PAGE_CSP, 'no-store');
      return;
    }
    await orUnavailable(services, res, next, async () => {
      const headlines =
        asOf === null ? await services.snapshot.headlines() : (await services.snapshot.asOf(asOf)).headlines;
      const latest = newestScoredAt(headlines);
      const now = services.clock.now();
      const body = ratingsPage({
        headlines,
        filter,
        frameworkVersion: (await frameworkInForce(services, onDayOf(asOf))).definition.framework_version,
        latestScoredAt: latest,
        ageSeconds: ageSeconds(latest, asOf === null ? now : new Date(asOf)),
        siteUrl: siteUrlOf(req),
        asOf,
        now: now.toISOString(),
      });
      // As fresh as the public list's snapshot: a publication shows within a minute.
      sendHtml(res, 200, body, FORM_PAGE_CSP, 'public, max-age=60');
    });
  });

  app.get('/providers/:id', async (req: Request, res: Response, next: NextFunction) => {
    const id = String(req.params.id ?? '');
    const asOf = asOfOf(req.query, services.clock.now());
    if (!UuidSchema.safeParse(id).success) {
      sendHtml(res, 400, badRequestPage(`${shown(id)} is not a provider id (a UUID).`), PAGE_CSP, 'no-store');
      return;
    }
    if (asOf !== null && typeof asOf === 'object') {
      sendHtml(res, 400, badRequestPage(asOf.problem), PAGE_CSP, 'no-store');
      return;
    }
    await orUnavailable(services, res, next, async () => {
      const view = await providerView(contextFor(services, { kind: 'public', client: req.ip ?? 'unknown' }), {
        providerId: id,
        asOf: asOf ?? undefined,
      });
      if (!view) sendHtml(res, 404, providerNotFoundPage(id, asOf), PAGE_CSP, 'no-store');
      else {
        const bands = (await frameworkInForce(services, onDayOf(asOf))).definition.bands.map((b) => ({
          band: b.band,
          min: Number(b.min),
        }));
        const body = providerPage(view, bands, { asOf, now: services.clock.now().toISOString() });
        sendHtml(res, 200, body, FORM_PAGE_CSP, 'public, max-age=60');
      }
    });
  });

  app.get('/verify/:id', async (req: Request, res: Response, next: NextFunction) => {
    const id = String(req.params.id ?? '');
    const notPublished = () => sendHtml(res, 404, notPublishedPage(id), PAGE_CSP, 'no-store');
    if (!RiskIndicatorIdSchema.safeParse(id).success) {
      notPublished();
      return;
    }
    await orUnavailable(services, res, next, async () => {
      const published = await publishedIndicator(
        contextFor(services, { kind: 'public', client: req.ip ?? 'unknown' }),
        {
          id,
        },
      );
      if (!published) {
        notPublished();
        return;
      }
      const body = verifyPage({
        ...published,
        siteUrl: siteUrlOf(req),
        frameworkVersion: knownVersionOf(services, published.frameworkVersion),
      });
      // Short: the page's figures never change, but "current" becomes "superseded" on the next publication.
      sendHtml(res, 200, body, PAGE_CSP, 'public, max-age=60');
    });
  });
}

/** Runs a page's work; a store that does not answer is the 503 page (try again shortly), anything else the error handler's. */
async function orUnavailable(
  services: Services,
  res: Response,
  next: NextFunction,
  work: () => Promise<void>,
): Promise<void> {
  try {
    await work();
  } catch (error) {
    if (!isStoreUnavailable(error)) {
      next(error);
      return;
    }
    services.metrics?.storeError('request');
    services.logger.warn({ req_id: res.locals.requestId, err: (error as Error).message }, 'store unavailable');
    res.setHeader('Retry-After', '5');
    sendHtml(res, 503, unavailablePage(), PAGE_CSP, 'no-store');
  }
}

/** A value echoed on an error page: control characters made visible, cut at 80 characters. */
function shown(value: string): string {
  const visible = showControls(value);
  return `"${visible.length > 80 ? `${visible.slice(0, 80)}…` : visible}"`;
}

/**
 * The ratings page's filters from its query, or what is wrong with one (a value outside its set, or given twice).
 * Other parameters are not filters and are let be: links to a page for people carry tracking parameters
 * (`utm_source`, `fbclid`), and refusing them would break a shared link; the API's strict queries are for programs.
 */
/**
 * The point in time of a page's `as_of` (as the API reads it: a date is the end of that day, UTC): null for now (absent,
 * or empty as the page's form sends an empty date), the instant as stored, or what is wrong with it.
 */
function asOfOf(query: Request['query'], now: Date): string | null | { problem: string } {
  const value = query.as_of;
  if (value === undefined || value === '') return null;
  if (typeof value !== 'string') return { problem: 'as_of is one date or timestamp; got more than one value.' };
  const instant = servableInstant(value, now);
  if (instant !== null) return instant;
  return { problem: `as_of ${asOfProblem(value, now) ?? 'is not a date or timestamp'}; got ${shown(value)}.` };
}

/** The day whose framework in force a page shows: today, or the as_of instant's. */
const onDayOf = (asOf: string | null) => (asOf === null ? {} : { on: asOf.slice(0, 10) });

function ratingsFilterOf(query: Request['query']): RatingsFilter | string {
  const filter: RatingsFilter = {};
  for (const [name, value] of Object.entries(query)) {
    const schema = name === 'planner_type' ? PlannerTypeSchema : name === 'band' ? RiskBandSchema : null;
    if (schema === null) continue;
    const parsed = typeof value === 'string' ? schema.safeParse(value) : null;
    if (!parsed?.success) {
      const given = typeof value === 'string' ? shown(value) : 'more than one value';
      return `${name} is one of ${schema.options.join(', ')}; got ${given}.`;
    }
    if (name === 'planner_type') filter.planner_type = parsed.data as RatingsFilter['planner_type'];
    else filter.band = parsed.data as RatingsFilter['band'];
  }
  return filter;
}
