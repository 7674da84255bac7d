import type { MethodologyResponse } from '@svc/contracts';
import { frameworkVersionKey } from '@svc/methodology';
import type { ServiceContext } from '../context.js';
import { ServiceError } from '../errors.js';
import { frameworkInForce, frameworkNamed, knownVersions } from './frameworks.js';

/**
 * A framework as published data: the one in force today (frameworkInForce) unless a version is named ("1.0", "v1.0"
 * or "DCRF v1.0"; frameworkNamed), with the sign-off recorded when it was published; an unknown version is refused
 * listing the supported ones, at `path`.
 */
export async function methodologyOf(
  ctx: ServiceContext,
  input: { version?: string | undefined; path: string },
): Promise<MethodologyResponse> {
  const { version, path } = input;
  const framework =
    version === undefined
      ? await frameworkInForce(ctx, { fresh: true })
      : await frameworkNamed(ctx, { version: frameworkVersionKey(version), fresh: true });
  if (!framework) {
    const supported = knownVersions(ctx).join(', ');
    throw new ServiceError('invalid_request', `unknown framework version "${version}"; supported: ${supported}`, [
      { path, message: `must be one of ${supported}` },
    ]);
  }
  const { definition, signOff, sha256 } = framework;
  return {
    framework_version: definition.framework_version,
    version: definition.version,
    effective_date: definition.effective_date,
    status: signOff ? 'approved' : 'draft',
    sign_off: signOff,
    framework_sha256: sha256,
    definition,
  };
}
