import { endpoints } from '@svc/contracts';
import { signingJwks } from '../../services/shared/signing.js';
import { defineRoute } from '../route.js';

/** The JWKS of the statement keys; a rotation adds a key, so it is cached for a few minutes only. */
export default defineRoute(endpoints.getSigningKeys, async ({ services }) => ({
  json: await signingJwks(services),
  headers: { 'cache-control': 'public, max-age=300' },
}));
