import type { McpToolInput } from '@svc/contracts';
import { methodologyOf } from '../../services/methodology.js';
import type { Services } from '../../services/services.js';

/** A framework as published data, as GET /api/v1/methodology serves it: the one in force unless a version is named. */
export async function getMethodology(input: McpToolInput<'get_methodology'>, services: Services): Promise<string> {
  return JSON.stringify(await methodologyOf(services, input.version, 'input.version'));
}
