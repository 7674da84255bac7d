import {
  MCP_FRAMEWORKS_URI,
  MCP_RESOURCE_TEMPLATES,
  type McpResource,
  type McpResourceReadResponse,
} from '@svc/contracts';
import { methodologyMarkdown, sha256Hex } from '@svc/methodology';
import type { ServiceContext } from '../services/context.js';
import { ServiceError } from '../services/errors.js';
import { releasedDefinition, releasedFrameworks, releasedVersion } from '../services/frameworks/frameworks.js';

/**
 * The agent interface's resources (decision 0012, "Resources"): the list of released frameworks, and for each
 * released version its definition (the canonical bytes GET /api/public/frameworks/{version} serves) and its
 * methodology specification as Markdown (docs/methodology/dcrf-<version>.md, from the same generator). All of it
 * is public data; over the agent interface it is read with the caller's key like any call.
 */

const [FRAMEWORK_TEMPLATE, METHODOLOGY_TEMPLATE] = MCP_RESOURCE_TEMPLATES;
const FRAMEWORK_PREFIX = FRAMEWORK_TEMPLATE.uri_template.replace('{version}', '');
const METHODOLOGY_PREFIX = METHODOLOGY_TEMPLATE.uri_template.replace('{version}', '');

/** The concrete resources: the list of released frameworks, then each released version's definition and text. */
export async function listResources(ctx: ServiceContext): Promise<McpResource[]> {
  const released = await releasedFrameworks(ctx);
  return [
    {
      uri: MCP_FRAMEWORKS_URI,
      name: 'frameworks',
      description:
        'Every released framework: version, framework_version, framework_sha256, effective date and sign-off, as GET /api/public/frameworks serves them.',
      mime_type: 'application/json',
    },
    ...released.flatMap((r) => [
      {
        uri: `${FRAMEWORK_PREFIX}${r.version}`,
        name: `framework ${r.version}`,
        description: `The ${r.framework_version} definition (framework_sha256 ${r.framework_sha256}), effective ${r.effective_date}.`,
        mime_type: FRAMEWORK_TEMPLATE.mime_type,
      },
      {
        uri: `${METHODOLOGY_PREFIX}${r.version}`,
        name: `methodology ${r.version}`,
        description: `The ${r.framework_version} methodology specification, effective ${r.effective_date}.`,
        mime_type: METHODOLOGY_TEMPLATE.mime_type,
      },
    ]),
  ];
}

/**
 * One resource by its URI. A URI of neither form, or naming a version that is not released, is refused
 * (not_found) with the resources there are; nothing else can go wrong reading them.
 */
export async function readResource(ctx: ServiceContext, uri: string): Promise<McpResourceReadResponse> {
  const answer = (mime_type: string, text: string): McpResourceReadResponse => ({
    resource_uri: uri,
    mime_type,
    sha256: sha256Hex(text),
    text,
  });
  if (uri === MCP_FRAMEWORKS_URI) {
    return answer('application/json', JSON.stringify({ data: await releasedFrameworks(ctx) }));
  }
  try {
    if (uri.startsWith(FRAMEWORK_PREFIX)) {
      const { bytes } = await releasedDefinition(ctx, { version: uri.slice(FRAMEWORK_PREFIX.length) });
      return answer(FRAMEWORK_TEMPLATE.mime_type, bytes.toString('utf8'));
    }
    if (uri.startsWith(METHODOLOGY_PREFIX)) {
      const framework = await releasedVersion(ctx, { version: uri.slice(METHODOLOGY_PREFIX.length) });
      return answer(METHODOLOGY_TEMPLATE.mime_type, methodologyText(framework));
    }
  } catch (error) {
    if (!(error instanceof ServiceError) || error.code !== 'not_found') throw error;
    throw unknownResource(uri, error.message);
  }
  throw unknownResource(
    uri,
    `the resources are ${MCP_FRAMEWORKS_URI} and ${MCP_RESOURCE_TEMPLATES.map((t) => t.uri_template).join(', ')}`,
  );
}

function unknownResource(uri: string, why: string): ServiceError {
  return new ServiceError('not_found', `no resource ${JSON.stringify(uri)}: ${why}`, [
    { path: 'resource_uri', message: `no such resource: ${why}` },
  ]);
}

/** The specification is generated once per framework (a framework is frozen; the text scores the worked example). */
const texts = new WeakMap<object, string>();
function methodologyText(framework: Parameters<typeof methodologyMarkdown>[0]): string {
  let text = texts.get(framework);
  if (text === undefined) {
    text = methodologyMarkdown(framework);
    texts.set(framework, text);
  }
  return text;
}
