import { endpoints } from '@svc/contracts';
import { methodologyOf } from '../../services/frameworks/methodology.js';
import { defineRoute, serviceContextOf } from '../route.js';

export default defineRoute(endpoints.getMethodology, async (route) => ({
  json: await methodologyOf(serviceContextOf(route), { version: route.query.version, path: 'query.version' }),
}));
