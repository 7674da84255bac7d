import type { RouteModule } from '../route.js';
import compareScores from './compare-scores.js';
import createWebhook from './create-webhook.js';
import deleteWebhook from './delete-webhook.js';
import exportScores from './export-scores.js';
import getChangelog from './get-changelog.js';
import getChangelogAtom from './get-changelog-atom.js';
import getComputation from './get-computation.js';
import getEvidenceSchedule from './get-evidence-schedule.js';
import getFramework from './get-framework.js';
import getLivez from './get-livez.js';
import getMethodology from './get-methodology.js';
import getPublicationStatement from './get-publication-statement.js';
import getRatingActionStatement from './get-rating-action-statement.js';
import getRatingActionsAtom from './get-rating-actions-atom.js';
import getReadyz from './get-readyz.js';
import getScore from './get-score.js';
import getScoreHistory from './get-score-history.js';
import getScoreMemo from './get-score-memo.js';
import getScoreRequest from './get-score-request.js';
import getSigningKeys from './get-signing-keys.js';
import getStatement from './get-statement.js';
import { getBandStatistics, getTransitionStatistics } from './get-statistics.js';
import getStatus from './get-status.js';
import listDeliveries from './list-deliveries.js';
import listFrameworks from './list-frameworks.js';
import listIssuances from './list-issuances.js';
import listPublicScores from './list-public-scores.js';
import listRatingActions from './list-rating-actions.js';
import listScores from './list-scores.js';
import listWebhooks from './list-webhooks.js';
import { callMcpTool, getMcpManifest } from './mcp.js';
import portfolioMemo from './portfolio-memo.js';
import redeliver from './redeliver.js';
import requestScore from './request-score.js';
import scorePortfolio from './score-portfolio.js';
import searchProviders from './search-providers.js';
import testWebhook from './test-webhook.js';
import whatIf from './what-if.js';

/** Every API route. Fixed paths under /scores come before /scores/{providerId}, which would take them. */
export const routes: RouteModule[] = [
  listScores,
  compareScores,
  exportScores,
  getScore,
  getScoreHistory,
  getScoreMemo,
  getEvidenceSchedule,
  getMethodology,
  getComputation,
  listIssuances,
  getStatus,
  getLivez,
  getReadyz,
  listPublicScores,
  getChangelog,
  getChangelogAtom,
  listFrameworks,
  getFramework,
  requestScore,
  getScoreRequest,
  getPublicationStatement,
  getSigningKeys,
  getStatement,
  getTransitionStatistics,
  getBandStatistics,
  listRatingActions,
  getRatingActionsAtom,
  getRatingActionStatement,
  createWebhook,
  listWebhooks,
  deleteWebhook,
  listDeliveries,
  redeliver,
  testWebhook,
  searchProviders,
  scorePortfolio,
  portfolioMemo,
  whatIf,
  getMcpManifest,
  callMcpTool,
];
