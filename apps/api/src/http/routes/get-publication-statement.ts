import { endpoints } from '@svc/contracts';
import { publicationStatement } from '../../services/statements/statements.js';
import { defineRoute, serviceContextOf } from '../route.js';

/** A publication's signed statement: never rewritten once signed, so a client may keep it as long as it likes. */
export default defineRoute(endpoints.getPublicationStatement, async ({ params, caller, services, req }) => ({
  json: await publicationStatement(serviceContextOf({ caller, services, req }), params),
  headers: { 'cache-control': 'public, max-age=86400, immutable' },
}));
