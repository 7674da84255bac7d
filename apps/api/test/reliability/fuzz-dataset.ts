import { TIER_HOURLY_LIMIT, type Tier } from '@svc/contracts';
import { createKey } from '../../src/services/access/access.js';
import { addIssuance } from '../../src/services/issuances/issuances.js';
import { withdrawProvider } from '../../src/services/providers/providers.js';
import { DEMO, idOf, SATS, SOCIETE } from '../mcp/fixtures.js';
import { ctxOf } from '../support/context.js';
import { example, variantOf } from '../support/documents.js';
import type { Receiver } from '../support/receiver.js';
import { clientIp } from '../support/responses.js';
import { publish, revoke, type TestServer, UNKNOWN_KEY } from '../support/server.js';
import { enableAgentTools } from '../support/terms.js';
import type { FuzzRequest } from './fuzz-client.js';
import { type Draft, KEY_WEIGHTS, type KeySlot } from './fuzz-requests.js';

/** The data a fuzz run works on: published providers, keys of every tier, webhooks with deliveries. */

export interface FuzzDataset {
  /** Known-good values by parameter, property or component name (see SchemaContext.known). */
  known: Record<string, readonly unknown[]>;
  /** The request a draft stands for, with its key filled in and a client address of its own. */
  materialize(draft: Draft): FuzzRequest;
}

const TIERS_IN_USE: Tier[] = ['FREE', 'PROFESSIONAL', 'ENTERPRISE', 'CUSTOM'];
const totalWeight = Object.values(KEY_WEIGHTS).reduce((a, b) => a + b, 0);

/** Publishes the providers, issues the keys (enough for `planned` requests to stay mostly within their limits), registers webhooks. */
export async function seedDataset(server: TestServer, receiver: Receiver, planned: number): Promise<FuzzDataset> {
  const { store, clock } = server.services;
  for (const doc of DEMO) await publish(server, doc);
  // One provider published and then withdrawn: its id is well-formed and known, yet has no indicator in force.
  const withdrawn = variantOf(example('low-band'), 199, { name: 'Withdrawn Lending' });
  await publish(server, withdrawn);
  await withdrawProvider(ctxOf(store, { clock }), { providerId: idOf(withdrawn), reason: 'fuzz data set' });
  await addIssuance(ctxOf(store, { clock }), {
    issuer_name: 'Example Sats Lending',
    instrument_name: 'Series A preferred',
    type: 'preferred_share',
    status: 'ANNOUNCED',
    currency: 'USD',
    target_amount: '25000000',
    provider_id: idOf(SATS),
  });

  // The main workspace: enabled for the agent tools, owner of the webhooks; a key pool per tier, each pool
  // large enough that its share of the planned requests spends at most half of each key's hourly limit.
  const main = await server.issueKey('ENTERPRISE');
  await enableAgentTools(ctxOf(store, { clock }), main.workspaceId);
  const pools = new Map<KeySlot, string[]>();
  for (const tier of TIERS_IN_USE) {
    const share = (planned * KEY_WEIGHTS[tier]) / totalWeight;
    const size = Math.max(1, Math.ceil(share / (TIER_HOURLY_LIMIT[tier] / 2)));
    const keys = tier === 'ENTERPRISE' ? [main.key] : [];
    while (keys.length < size)
      keys.push((await createKey(ctxOf(store, { clock }), { workspaceId: main.workspaceId, tier })).key);
    pools.set(tier, keys);
  }
  const otherShare = (planned * KEY_WEIGHTS['other-workspace']) / totalWeight;
  const others: string[] = [];
  while (others.length < Math.max(1, Math.ceil(otherShare / (TIER_HOURLY_LIMIT.PROFESSIONAL / 2)))) {
    others.push(await server.key('PROFESSIONAL'));
  }
  pools.set('other-workspace', others);
  const revoked = (await createKey(ctxOf(store, { clock }), { workspaceId: main.workspaceId, tier: 'ENTERPRISE' })).key;
  await revoke(server, revoked);

  const api = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res =
      body === undefined
        ? await server.get(path, { method, key: main.key })
        : await server.send(method, path, body, main.key);
    if (!res.ok) throw new Error(`seeding ${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  const webhookIds: string[] = [];
  const deliveryIds: string[] = [];
  for (const [n, events] of [
    ['risk_indicator.published'],
    ['risk_indicator.band_changed', 'issuance.updated'],
  ].entries()) {
    const hook = await api<{ id: string }>('POST', '/api/v1/webhooks', { url: `${receiver.url}/seed-${n}`, events });
    webhookIds.push(hook.id);
    for (let n = 0; n < 2; n++) {
      deliveryIds.push((await api<{ id: string }>('POST', `/api/v1/webhooks/${hook.id}/test`)).id);
    }
  }

  const scores = await api<{ data: { risk_indicator_id: string }[]; next_cursor: string | null }>(
    'GET',
    '/api/v1/scores?limit=1',
  );
  const history = await api<{ data: { risk_indicator_id: string }[]; next_cursor: string | null }>(
    'GET',
    `/api/v1/scores/${idOf(SATS)}/history?limit=1`,
  );
  const all = await api<{ data: { risk_indicator_id: string }[] }>('GET', '/api/v1/scores?limit=500');
  const changes = await api<{ next_cursor: string | null }>('GET', '/api/public/changelog?limit=1');
  const actions = await api<{ data: { id: string }[]; next_cursor: string | null }>(
    'GET',
    '/api/public/rating-actions?limit=1',
  );
  const actionList = (
    await api<{ data: { id: string; signature: { statement_sha256: string } | null }[] }>(
      'GET',
      '/api/public/rating-actions?limit=500',
    )
  ).data;
  const actionIds = actionList.map((a) => a.id);
  // Every statement's hash (each action's, and each publication's through its own), and some that name none.
  const statementHashes = [
    ...actionList.flatMap((a) => (a.signature ? [a.signature.statement_sha256] : [])),
    '0'.repeat(64),
    'A'.repeat(64),
  ];
  const deliveries = await api<{ next_cursor: string | null }>(
    'GET',
    `/api/v1/webhooks/${webhookIds[0]}/deliveries?limit=1`,
  );

  const providerIds = [...new Set([...DEMO, withdrawn].map(idOf))];
  const names = [...new Set(DEMO.map((d) => d.provider.name)), 'sats', 'Nord', 'zurich', 'societe', 'Crédit', 'pro'];
  const riIds = [...new Set([...all.data, ...history.data].map((i) => i.risk_indicator_id))];
  const cursors = [
    scores.next_cursor,
    history.next_cursor,
    changes.next_cursor,
    actions.next_cursor,
    deliveries.next_cursor,
  ].filter((c): c is string => typeof c === 'string');
  // Cursors of the right shape whose fields no list ever writes: NUL and escape characters, a negative position.
  const cursorOf = (position: unknown) => Buffer.from(JSON.stringify(position)).toString('base64url');
  const hostileCursors = [
    cursorOf({ name: 'a\u0000b', id: providerIds[0] }),
    cursorOf({ name: '\u001b[2J', id: providerIds[0] }),
    cursorOf({ name: 'Credit Nord', id: '\u0000' }),
    cursorOf({ n: -1 }),
    // Numbers past what the store's sequence columns hold (PostgreSQL integer): a 500 there once, a 200 on SQLite.
    cursorOf({ n: 2 ** 31 }),
    cursorOf({ n: 2 ** 31, w: 1 }),
    cursorOf({ n: Number.MAX_SAFE_INTEGER }),
    cursorOf({ a: '2026-06-02T10:00:00.000Z\u0000', id: 'iss_1' }),
    cursorOf({ c: '2026-06-02T10:00:00.000Z', id: 'whd_\u0000' }),
  ];
  const mcpMessages = [
    { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    { jsonrpc: '2.0', id: 'init', method: 'initialize', params: mcpInitialize },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'ping' },
    { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'get_methodology', arguments: {} } },
    { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'search_providers', arguments: { query: 'nord' } } },
    {
      jsonrpc: '2.0',
      id: 5,
      method: 'tools/call',
      params: { name: 'get_provider_score', arguments: { provider_name: 'Credit Nord' } },
    },
    { jsonrpc: '2.0', id: 6, method: 'resources/list' },
    {
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'get_rating_actions', arguments: { provider_name: 'Credit Nord', type: 'NEW', limit: 5 } },
    },
  ];
  const known: Record<string, readonly unknown[]> = {
    providerId: providerIds,
    provider_id: providerIds,
    id: riIds,
    webhookId: webhookIds,
    ratingActionId: actionIds,
    statementSha256: statementHashes,
    deliveryId: deliveryIds,
    ids: [
      `${idOf(SATS)},${idOf(SOCIETE)}`,
      providerIds.slice(0, 4).join(','),
      providerIds.join(','),
      `${idOf(SATS).toUpperCase()}, ${idOf(SOCIETE)}`,
    ],
    q: names,
    query: names,
    provider_name: names,
    provider_names: names,
    url: Array.from({ length: 24 }, (_, n) => `${receiver.url}/fuzz-${n}`),
    version: ['1.0', 'DCRF v1.0', '0.9'],
    cursor: [...cursors, ...hostileCursors],
    since: ['2026-01-01', '2026-06-02T10:00:00Z', '2030-01-01'],
    inputs: [
      { collateral_coverage_ratio: 1.5 },
      { operating_history_years: 2, proof_of_reserves: 'none' },
      { collateral_coverage_ratio: { value: 0.9, as_of: '2026-05-01' } },
    ],
    JsonRpcMessage: mcpMessages,
  };

  const turns = new Map<KeySlot, number>();
  const nextOf = (slot: KeySlot) => {
    const pool = pools.get(slot) ?? [main.key];
    const turn = turns.get(slot) ?? 0;
    turns.set(slot, turn + 1);
    return pool[turn % pool.length] as string;
  };
  let clients = 0;
  const keyHeader = (draft: Draft): string | string[] | undefined => {
    switch (draft.key) {
      case 'absent':
        return undefined;
      case 'empty':
        return '';
      case 'unknown':
        return UNKNOWN_KEY;
      case 'malformed':
        return draft.keyNoise;
      case 'revoked':
        return revoked;
      case 'padded':
        return `  ${nextOf('ENTERPRISE')}\t`;
      case 'repeated':
        return [nextOf('ENTERPRISE'), nextOf('ENTERPRISE')];
      default:
        return nextOf(draft.key);
    }
  };
  return {
    known,
    materialize(draft) {
      const key = keyHeader(draft);
      // A client address per request (the server trusts the loopback proxy): the per-IP public limits stay out of the way.
      const headers: Record<string, string | string[]> = { 'x-forwarded-for': clientIp(clients++), ...draft.headers };
      if (key !== undefined) headers['x-api-key'] = key;
      return { method: draft.method, target: draft.target, headers, body: draft.body };
    },
  };
}

const mcpInitialize = {
  protocolVersion: '2025-06-18',
  capabilities: {},
  clientInfo: { name: 'fuzz', version: '1.0.0' },
};
