import { endpoints } from '@svc/contracts';
import { whatIf } from '../../services/analysis.js';
import { defineRoute } from '../route.js';

export default defineRoute(endpoints.whatIf, async ({ params, body, services }) => ({
  json: await whatIf(services, params.providerId.toLowerCase(), body),
}));
