import { buildOpenApiDocument, type Deprecations } from '@svc/contracts';
import {
  approvedInputsJsonSchema,
  computationPackageJsonSchema,
  type Framework,
  jsonSchemaText,
} from '@svc/methodology';
import type { Application } from 'express';
import { CHART_CSS } from '../../../pages/chart.js';
import { apiReferencePage, errorsPage } from '../../../pages/docs.js';
import { llmsTxt } from '../../../pages/llms.js';
import { methodologyPage } from '../../../pages/methodology.js';
import { frameworkInForce } from '../../../services/frameworks/frameworks.js';
import { strongEtag } from '../../../services/shared/public-snapshot.js';
import { deprecationsOf } from '../../deprecation.js';
import { definePage, htmlReply, type PageReply } from '../../page.js';
import { siteUrlOf } from '../../problem.js';
import { docsCsp, PAGE_CSP } from '../../site-policy.js';

/** The documents the service serves besides the API: the OpenAPI document, the reference, llms.txt, the schemas. */

/** The OpenAPI document, built once per app and site address (its deprecations are the app's). */
const documents = new WeakMap<Application, Map<string, string>>();

export const openApiDocument = definePage({
  path: '/openapi.json',
  async handle({ req }) {
    const site = siteUrlOf(req);
    let built = documents.get(req.app);
    if (!built) {
      built = new Map();
      documents.set(req.app, built);
    }
    let text = built.get(site);
    if (!text) {
      // An endpoint's name in the contract is its operationId.
      const deprecations = Object.fromEntries(deprecationsOf(req.app)) as Deprecations;
      text = JSON.stringify(buildOpenApiDocument({ serverUrl: site, deprecations }));
      built.set(site, text);
    }
    return {
      headers: [
        ['Content-Type', 'application/json; charset=utf-8'],
        ['Access-Control-Allow-Origin', '*'],
      ],
      body: text,
    };
  },
});

export const apiReference = definePage({
  path: '/docs',
  handle: async ({ services }) => htmlReply(200, apiReferencePage(), docsCsp(services.siteUrl), 'public, max-age=300'),
});

export const errorCodes = definePage({
  path: '/docs/errors',
  handle: async ({ req }) => htmlReply(200, errorsPage(siteUrlOf(req)), PAGE_CSP, 'public, max-age=300'),
});

export const llms = definePage({
  path: '/llms.txt',
  async handle({ req, services }) {
    const framework = await frameworkInForce(services);
    return {
      headers: [
        ['Content-Type', 'text/plain; charset=utf-8'],
        ['Cache-Control', 'public, max-age=300'],
        ['Access-Control-Allow-Origin', '*'],
      ],
      body: llmsTxt(siteUrlOf(req), framework, deprecationsOf(req.app)),
    };
  },
});

export const methodology = definePage({
  path: '/methodology',
  handle: async ({ services }) =>
    htmlReply(200, methodologyPage(await frameworkInForce(services)), PAGE_CSP, 'public, max-age=300'),
});

/** A fixed text served as it is (a JSON Schema, the charts' styles): its bytes and their strong ETag. */
interface FixedFile {
  bytes: Buffer;
  etag: string;
}

const fixedFile = (text: string): FixedFile => {
  const bytes = Buffer.from(text, 'utf8');
  return { bytes, etag: strongEtag(bytes) };
};

/** A fixed file with its ETag; 304 when If-None-Match names it (compression.ts). */
function fixedReply(file: FixedFile, contentType: string, cache: string): PageReply {
  return {
    headers: [
      ['ETag', file.etag],
      ['Cache-Control', cache],
      ['Content-Type', contentType],
      ['Content-Length', String(file.bytes.length)],
    ],
    body: file.bytes,
  };
}

/** A JSON Schema: public, cacheable, readable from any origin. */
function schemaReply(file: FixedFile): PageReply {
  const reply = fixedReply(file, 'application/schema+json', 'public, max-age=300');
  return { ...reply, headers: [['Access-Control-Allow-Origin', '*'], ...reply.headers] };
}

/** The inputs' schema is built once per framework in force; the package's is the same for every framework. */
const inputsSchemas = new WeakMap<Framework, FixedFile>();
let packageSchema: FixedFile | undefined;

// The documents the service accepts now are those of the framework in force; docs/schemas/ holds the current one's.
export const approvedInputsSchema = definePage({
  path: '/schemas/approved-inputs.json',
  async handle({ services }) {
    const framework = await frameworkInForce(services);
    let file = inputsSchemas.get(framework);
    if (!file) {
      file = fixedFile(jsonSchemaText(approvedInputsJsonSchema(framework)));
      inputsSchemas.set(framework, file);
    }
    return schemaReply(file);
  },
});

export const computationPackageSchema = definePage({
  path: '/schemas/computation-package.json',
  async handle() {
    packageSchema ??= fixedFile(jsonSchemaText(computationPackageJsonSchema()));
    return schemaReply(packageSchema);
  },
});

/** The charts' styles: one text with the memos' inline copy (pages/chart.ts), served like the site's files. */
const chartCss = fixedFile(CHART_CSS);

export const chartStyles = definePage({
  path: '/assets/chart.css',
  handle: async () => fixedReply(chartCss, 'text/css; charset=utf-8', 'public, max-age=3600'),
});
