import { endpoints } from '@svc/contracts';
import { whatIf } from '../../services/analysis.js';
import { routeContext } from '../context.js';
import { defineRoute } from '../route.js';

export default defineRoute(endpoints.whatIf, async ({ params, body, services, req, caller }) => ({
  json: await whatIf(routeContext({ caller, services, req }), { providerId: params.providerId.toLowerCase(), body }),
}));
