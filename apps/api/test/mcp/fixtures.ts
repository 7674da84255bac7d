import type { Tier } from '@svc/contracts';
import { ctxOf } from '../support/context.js';
import { example, type InputsDoc, variantOf, vary, withInput } from '../support/documents.js';
import { publish, type TestServer } from '../support/server.js';
import { enableAgentTools } from '../support/terms.js';

/** Demo-like providers: accented names, two sharing a prefix, two whose names differ only by accents. */

/** "Example Sats Lending", published twice (see SATS_SECOND). */
export const SATS = example('worked-example');
/** SATS with more collateral: its second publication. */
export const SATS_SECOND = withInput(SATS, 'collateral_coverage_ratio', 1.4);
/** Shares the prefix "Example Sats Lending" with SATS. */
export const SATS_PRO = vary(variantOf(SATS, 101, { name: 'Example Sats Lending Pro' }), {
  values: { collateral_coverage_ratio: 1.8, operating_history_years: 8 },
});
export const SOCIETE = variantOf(example('low-band'), 102, { name: 'Société Générale Crédit' });
export const ZURICH = variantOf(example('multiple-caps'), 103, { name: 'Zürich Bitcoin Kredit', planner_type: 'btc' });
export const NORDIC = vary(variantOf(SATS, 104, { name: 'Nordic Yield Earn', planner_type: 'fiat' }), {
  values: { collateral_coverage_ratio: 1.2, operating_history_years: 3 },
});
/** Two providers whose names fold to the same text. */
export const CREDIT_NORD = variantOf(SATS, 105, { name: 'Credit Nord' });
export const CREDIT_NORD_ACCENTED = variantOf(example('low-band'), 106, { name: 'Crédit Nord' });

export const DEMO: InputsDoc[] = [
  SATS,
  SATS_SECOND,
  SATS_PRO,
  SOCIETE,
  ZURICH,
  NORDIC,
  CREDIT_NORD,
  CREDIT_NORD_ACCENTED,
];

export const idOf = (doc: InputsDoc) => doc.provider.id;

export async function publishDemo(server: TestServer): Promise<void> {
  for (const doc of DEMO) await publish(server, doc);
}

/** A key of the tier in a new workspace the operator enabled for the agent tools (`svc workspace enable-mcp`). */
export async function mcpKey(server: TestServer, tier: Tier = 'PROFESSIONAL'): Promise<string> {
  const issued = await server.issueKey(tier);
  await enableAgentTools(ctxOf(server.services.store), issued.workspaceId);
  return issued.key;
}

/** A plain tool call. */
export function callTool(server: TestServer, key: string | undefined, tool_name: string, input: unknown) {
  return server.send('POST', '/api/mcp', { tool_name, input }, key);
}

/** The environment of a server that serves the preview. */
export const MCP_ON = { env: { SVC_MCP_ENABLED: 'true' } };
