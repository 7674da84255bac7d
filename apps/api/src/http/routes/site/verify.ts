import { RiskIndicatorIdSchema } from '@svc/contracts';
import { notPublishedPage, verifyPage } from '../../../pages/verify.js';
import { knownVersionOf } from '../../../services/frameworks/frameworks.js';
import { publishedIndicator } from '../../../services/scores/scores.js';
import { contextFor } from '../../../services/services.js';
import { definePage, htmlReply, PageRefusal } from '../../page.js';
import { siteUrlOf } from '../../problem.js';
import { PAGE_CSP } from '../../site-policy.js';
import { unavailable } from './ratings.js';

const notPublished = (id: string) => htmlReply(404, notPublishedPage(id), PAGE_CSP, 'no-store');

/** A published Risk Indicator's verification page: its figures, its package's hash, how to check them. */
export const verification = definePage({
  path: '/verify/:id',
  parse(req) {
    const id = String(req.params.id ?? '');
    if (!RiskIndicatorIdSchema.safeParse(id).success) throw new PageRefusal(notPublished(id));
    return { id };
  },
  async handle({ params: { id }, req, services }) {
    const published = await publishedIndicator(contextFor(services, { kind: 'public', client: req.ip ?? 'unknown' }), {
      id,
    });
    if (!published) return notPublished(id);
    const body = verifyPage({
      ...published,
      siteUrl: siteUrlOf(req),
      frameworkVersion: knownVersionOf(services, published.frameworkVersion),
    });
    // Short: the page's figures never change, but "current" becomes "superseded" on the next publication.
    return htmlReply(200, body, PAGE_CSP, 'public, max-age=60');
  },
  unavailable,
});
