import { endpoints } from '@svc/contracts';
import { computationPackage } from '../../services/scores/scores.js';

import { defineRoute, serviceContextOf } from '../route.js';

/** The package's stored canonical bytes, unchanged, so an auditor can check them byte for byte. */
export default defineRoute(endpoints.getComputation, async ({ params, caller, services, req }) => ({
  jsonText: await computationPackage(serviceContextOf({ caller, services, req }), params),
}));
