import type { MethodologyResponse } from '@svc/contracts';
import { currentFramework, frameworks } from '@svc/methodology';
import { ServiceError } from './errors.js';

/**
 * A framework as published data: the one in force unless a version is named ("1.0", "v1.0" or
 * "DCRF v1.0"); an unknown version is refused listing the supported ones, at `path`.
 */
export function methodologyOf(version: string | undefined, path: string): MethodologyResponse {
  const framework = version === undefined ? currentFramework() : frameworks.get(version.replace(/^(DCRF\s+)?v/i, ''));
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
