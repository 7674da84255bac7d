import { endpoints } from '@svc/contracts';
import { evidenceSchedule } from '../../services/analysis/evidence-schedule.js';

import { defineRoute, serviceContextOf } from '../route.js';

export default defineRoute(endpoints.getEvidenceSchedule, async ({ params, query, caller, services, req }) => ({
  json: await evidenceSchedule(serviceContextOf({ caller, services, req }), {
    providerId: params.providerId,
    days: query.days,
  }),
}));
