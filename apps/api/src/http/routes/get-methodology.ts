import { endpoints, type MethodologyResponse } from '@svc/contracts';
import { currentFramework, frameworks } from '@svc/methodology';
import { ApiError } from '../problem.js';
import { defineRoute } from '../route.js';

export default defineRoute(endpoints.getMethodology, async ({ query }) => {
  const framework =
    query.version === undefined ? currentFramework() : frameworks.get(query.version.replace(/^(DCRF\s+)?v/i, ''));
  if (!framework) {
    const supported = [...frameworks.keys()].join(', ');
    throw new ApiError('invalid_request', `unknown framework version "${query.version}"; supported: ${supported}`, {
      errors: [{ path: 'query.version', message: `must be one of ${supported}` }],
    });
  }
  const { definition, signOff, sha256 } = framework;
  const body: MethodologyResponse = {
    framework_version: definition.framework_version,
    version: definition.version,
    effective_date: definition.effective_date,
    status: signOff ? 'approved' : 'draft',
    sign_off: signOff,
    framework_sha256: sha256,
    definition,
  };
  return { json: body };
});
