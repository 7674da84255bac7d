import { endpoints } from '@svc/contracts';
import { computationPackage } from '../../services/scores.js';
import { routeContext } from '../context.js';
import { defineRoute } from '../route.js';

/** The package's stored canonical bytes, unchanged, so an auditor can check them byte for byte. */
export default defineRoute(endpoints.getComputation, async ({ params, caller, services, req }) => ({
  jsonText: await computationPackage(routeContext({ caller, services, req }), params),
}));
