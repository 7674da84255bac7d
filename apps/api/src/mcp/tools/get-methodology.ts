import type { McpToolInput } from '@svc/contracts';
import type { ServiceContext } from '../../services/context.js';
import { methodologyOf } from '../../services/frameworks/methodology.js';

/** A framework as published data, as GET /api/v1/methodology serves it: the one in force unless a version is named. */
export async function getMethodology(ctx: ServiceContext, input: McpToolInput<'get_methodology'>): Promise<string> {
  return JSON.stringify(await methodologyOf(ctx, { version: input.version, path: 'input.version' }));
}
