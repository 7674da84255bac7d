import type { PageModule } from '../../page.js';
import {
  apiReference,
  approvedInputsSchema,
  chartStyles,
  computationPackageSchema,
  errorCodes,
  llms,
  methodology,
  openApiDocument,
} from './documents.js';
import { provider, ratings } from './ratings.js';
import { verification } from './verify.js';

/** Every page of the site, in the order they are routed (the static files are site.ts's). */
// biome-ignore lint/suspicious/noExplicitAny: each page narrows its own parameters through definePage
export const pages: readonly PageModule<any>[] = [
  openApiDocument,
  chartStyles,
  apiReference,
  errorCodes,
  llms,
  approvedInputsSchema,
  computationPackageSchema,
  methodology,
  ratings,
  provider,
  verification,
];
