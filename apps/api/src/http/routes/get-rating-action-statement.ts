import { endpoints } from '@svc/contracts';
import { ratingActionStatement } from '../../services/rating-actions/rating-actions.js';
import { defineRoute, serviceContextOf } from '../route.js';

/** A rating action's signed statement: never rewritten once signed, so a client may keep it as long as it likes. */
export default defineRoute(endpoints.getRatingActionStatement, async ({ params, caller, services, req }) => ({
  json: await ratingActionStatement(serviceContextOf({ caller, services, req }), params),
  headers: { 'cache-control': 'public, max-age=86400, immutable' },
}));
