import type { McpToolInput, McpToolName } from '@svc/contracts';
import type { ServiceContext } from '../../services/context.js';
import { compareProviders } from './compare-providers.js';
import { getMethodology } from './get-methodology.js';
import { getProviderScore } from './get-provider-score.js';
import { getRatingActions } from './get-rating-actions.js';
import { getScoreHistory } from './get-score-history.js';
import { searchProviders } from './search-providers.js';

/**
 * A tool: its checked input, run in the caller's service context, to the JSON text of its output. Refusals are
 * ServiceErrors (not_found, invalid_request).
 */
export type ToolRun<N extends McpToolName> = (ctx: ServiceContext, input: McpToolInput<N>) => Promise<string>;

/** Every agent tool, by name; the contract (MCP_TOOLS) holds their descriptions and schemas. */
export const TOOLS: { [N in McpToolName]: ToolRun<N> } = {
  get_provider_score: getProviderScore,
  compare_providers: compareProviders,
  get_score_history: getScoreHistory,
  search_providers: searchProviders,
  get_methodology: getMethodology,
  get_rating_actions: getRatingActions,
};

/** Runs a tool whose input has been checked against its contract schema. */
export function runTool<N extends McpToolName>(ctx: ServiceContext, name: N, input: McpToolInput<N>): Promise<string> {
  return (TOOLS[name] as ToolRun<N>)(ctx, input);
}
