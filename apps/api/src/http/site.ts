import { buildOpenApiDocument } from '@svc/contracts';
import type { Express, Request, Response } from 'express';
import type { Services } from '../services/services.js';
import { siteUrlOf } from './problem.js';

/** Paths of the site pages (GET only), for the 405 answers. */
export const SITE_PATHS = ['/openapi.json'];

/** The pages the service serves besides the API: the OpenAPI document, the reference, llms.txt, verification pages. */
export function registerSitePages(app: Express, _services: Services): void {
  const documents = new Map<string, string>();
  app.get('/openapi.json', (req: Request, res: Response) => {
    const site = siteUrlOf(req);
    let text = documents.get(site);
    if (!text) {
      text = JSON.stringify(buildOpenApiDocument({ serverUrl: site }));
      documents.set(site, text);
    }
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.end(text);
  });
}
