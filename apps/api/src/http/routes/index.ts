import type { RouteModule } from '../route.js';
import createWebhook from './create-webhook.js';
import deleteWebhook from './delete-webhook.js';
import getChangelog from './get-changelog.js';
import getChangelogAtom from './get-changelog-atom.js';
import getComputation from './get-computation.js';
import getMethodology from './get-methodology.js';
import getScore from './get-score.js';
import getScoreHistory from './get-score-history.js';
import getStatus from './get-status.js';
import listDeliveries from './list-deliveries.js';
import listIssuances from './list-issuances.js';
import listPublicScores from './list-public-scores.js';
import listScores from './list-scores.js';
import listWebhooks from './list-webhooks.js';
import redeliver from './redeliver.js';
import requestScore from './request-score.js';
import testWebhook from './test-webhook.js';

/** Every API route. Registration order matters only where paths overlap (none do). */
export const routes: RouteModule[] = [
  listScores,
  getScore,
  getScoreHistory,
  getMethodology,
  getComputation,
  listIssuances,
  getStatus,
  listPublicScores,
  getChangelog,
  getChangelogAtom,
  requestScore,
  createWebhook,
  listWebhooks,
  deleteWebhook,
  listDeliveries,
  redeliver,
  testWebhook,
];
