import { endpoints } from '@svc/contracts';
import { bandCounts, bandsCsv, transitionMatrix, transitionsCsv } from '../../services/records/track-record.js';
import { conditionalAnswer } from '../public-scores.js';
import { defineRoute, type Reply, serviceContextOf } from '../route.js';

/** JSON or CSV bytes with a strong ETag of their own; a matching If-None-Match gets 304 and no body (compression.ts). */
function answer(format: 'json' | 'csv', json: unknown, csv: () => string): Reply {
  const [bytes, contentType] =
    format === 'csv'
      ? [Buffer.from(csv()), 'text/csv; charset=utf-8']
      : [Buffer.from(JSON.stringify(json)), 'application/json'];
  // As the public list: an answer that includes the present changes with the next publication, within the minute.
  return conditionalAnswer(bytes, contentType);
}

/** GET /api/public/statistics/transitions: the band transition matrix between two instants. */
export const getTransitionStatistics = defineRoute(endpoints.getTransitionStatistics, async (route) => {
  const { query } = route;
  const matrix = await transitionMatrix(serviceContextOf(route), { from: query.from, to: query.to });
  return answer(query.format, matrix, () => transitionsCsv(matrix));
});

/** GET /api/public/statistics/bands: providers per band at an instant. */
export const getBandStatistics = defineRoute(endpoints.getBandStatistics, async (route) => {
  const { query } = route;
  const counts = await bandCounts(serviceContextOf(route), { asOf: query.as_of });
  return answer(query.format, counts, () => bandsCsv(counts));
});
