import { endpoints } from '@svc/contracts';
import { releasedFrameworks } from '../../services/frameworks/frameworks.js';
import { conditionalAnswer } from '../public-scores.js';
import { defineRoute, serviceContextOf } from '../route.js';

/** Every released framework, with a strong ETag of the answer's bytes; a matching If-None-Match gets 304 (compression.ts). */
export default defineRoute(endpoints.listFrameworks, async (route) => {
  const bytes = Buffer.from(JSON.stringify({ data: await releasedFrameworks(serviceContextOf(route)) }));
  // As the public list: a release recorded shows within the minute.
  return conditionalAnswer(bytes, 'application/json');
});
