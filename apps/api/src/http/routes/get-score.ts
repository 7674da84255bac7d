import { endpoints } from '@svc/contracts';
import { currentIndicator } from '../../services/scores.js';
import { routeContext } from '../context.js';
import { defineRoute } from '../route.js';

export default defineRoute(endpoints.getScore, async ({ params, caller, services, req }) => ({
  jsonText: await currentIndicator(routeContext({ caller, services, req }), params),
}));
