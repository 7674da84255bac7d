import { endpoints } from '@svc/contracts';
import { methodologyOf } from '../../services/methodology.js';
import { defineRoute } from '../route.js';

export default defineRoute(endpoints.getMethodology, async ({ query, services }) => ({
  json: await methodologyOf(services, query.version, 'query.version'),
}));
