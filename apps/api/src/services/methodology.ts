import type { MethodologyResponse } from '@svc/contracts';
import { frameworks } from '@svc/methodology';
import type { Clock } from '../clock.js';
import type { Store } from '../store/store.js';
import { ServiceError } from './errors.js';
import { publishedFramework } from './frameworks.js';

/**
 * A framework as published data: the one in force unless a version is named ("1.0", "v1.0" or
 * "DCRF v1.0"), with the sign-off recorded when it was published (publishedFramework); an unknown
 * version is refused listing the supported ones, at `path`.
 */
export async function methodologyOf(
  store: Store,
  clock: Clock,
  version: string | undefined,
  path: string,
): Promise<MethodologyResponse> {
  const key = version === undefined ? undefined : version.replace(/^(DCRF\s+)?v/i, '');
  const framework = await publishedFramework(store, key, clock.now().toISOString().slice(0, 10));
  if (!framework) {
    const supported = [...frameworks.keys()].join(', ');
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
