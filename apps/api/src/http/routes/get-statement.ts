import { endpoints } from '@svc/contracts';
import { statementByHash } from '../../services/statements/statements.js';
import { defineRoute, serviceContextOf } from '../route.js';

/** Any signed statement, by the hash of its bytes: what a hash names never changes, so it may be kept for ever. */
export default defineRoute(endpoints.getStatement, async ({ params, caller, services, req }) => ({
  json: await statementByHash(serviceContextOf({ caller, services, req }), params),
  headers: { 'cache-control': 'public, max-age=31536000, immutable' },
}));
