import { type LiveResponse, operationsEndpoints } from '@svc/contracts';
import { defineRoute } from '../route.js';

const LIVE: LiveResponse = { status: 'live' };

/** The process is up and its event loop turns: nothing else is looked at (a store outage must not restart it). */
export default defineRoute(operationsEndpoints.getLivez, async () => ({
  json: LIVE,
  headers: { 'Cache-Control': 'no-store' },
}));
