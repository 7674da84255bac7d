import type { KyselyPlugin } from 'kysely';
import { beforeEach, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../src/services/access.js';
import { publishIndicator } from '../../src/services/publishing.js';
import { secretBox } from '../../src/services/secrets.js';
import { registerWebhook } from '../../src/services/webhooks/endpoints.js';
import type { Store } from '../../src/store/store.js';
import { manualClock } from '../support/clock.js';
import { ctxOf } from '../support/context.js';
import { framework, newProvider } from '../support/documents.js';
import { engines, useFreshStore } from '../support/stores.js';

// Decision 0035: a publication's statements, counted. Each is a round trip to PostgreSQL; the counts below are what
// the transaction needs, and a change that adds one should say why.

const APPROVED_AT = '2026-06-02T10:00:00.000Z';
const box = secretBox(Buffer.alloc(32, 13));

/** The store with every statement its services build counted, by kind and table. */
function counted(store: Store): { store: Store; statements: string[] } {
  const statements: string[] = [];
  const plugin: KyselyPlugin = {
    transformQuery({ node }) {
      const n = node as unknown as Record<string, { table?: { identifier?: { name?: string } } } | undefined>;
      const target = n.into ?? n.table ?? (n.from as unknown as { froms?: (typeof n.into)[] } | undefined)?.froms?.[0];
      statements.push(`${node.kind.replace('QueryNode', '')} ${target?.table?.identifier?.name ?? '?'}`);
      return node;
    },
    transformResult: async ({ result }) => result,
  };
  return { store: { ...store, db: store.db.withPlugin(plugin) } as Store, statements };
}

describe.each(engines)('the statements of a publication on %s', (engine) => {
  const store = useFreshStore(engine);
  const clock = manualClock();
  beforeEach(() => {
    clock.set('2026-07-01T09:00:00.000Z');
  });

  it('a publication reads what it must once: 24 statements, the webhook endpoints read once for three events', async () => {
    const ws = await createWorkspace(ctxOf(store, { clock, box }), { name: 'Hooks Ltd' });
    const keyed = ctxOf(store, { clock, box, policy: { allowLoopback: true }, workspaceId: ws.workspace_id });
    const published = await registerWebhook(keyed, {
      url: 'http://127.0.0.1:4999/published',
      events: ['risk_indicator.published'],
    });
    const actions = await registerWebhook(keyed, {
      url: 'http://127.0.0.1:4999/actions',
      events: ['rating_action.created', 'risk_indicator.band_changed'],
    });
    // The store's first signing registers its key: counted from the second publication on.
    const first = await publishIndicator(ctxOf(store, { clock }), {
      document: newProvider(),
      framework,
      approvedAt: APPROVED_AT,
    });
    expect(first.status).toBe('published');
    const watched = counted(store);
    const doc = newProvider();
    const outcome = await publishIndicator(ctxOf(watched.store, { clock }), {
      document: doc,
      framework,
      approvedAt: APPROVED_AT,
    });
    expect(outcome.status).toBe('published');
    expect(watched.statements).toEqual([
      'Select store_meta', // whether past publications are signed (before the transaction)
      'Insert store_meta', // the publication version, bumped in one statement: the publishers' lock
      'Select providers',
      'Insert providers',
      'Insert risk_indicators', // unless stored already, in the same statement
      'Insert store_meta', // the publication sequence
      'Insert indicator_history',
      'Update providers',
      'Select approved_inputs', // who proposed and approved: the rating action's maker
      'Insert store_meta', // the rating action sequence
      'Insert rating_actions',
      'Insert changelog',
      'Select webhook_endpoints', // once, for the three events a publication may emit
      'Insert webhook_events',
      'Insert webhook_deliveries',
      'Update audit_head',
      'Insert audit_log',
      'Update audit_head',
      'Select signing_keys', // once: the action's statement is signed with the key just checked
      'Select statements', // once: the action's statement follows the publication's, just signed
      'Insert statements',
      'Insert statements',
      'Insert webhook_events', // rating_action.created, to the endpoint subscribed to it
      'Insert webhook_deliveries',
    ]);
    // The deliveries are those reading per event gave: each event to the endpoints subscribed to its type.
    const deliveries = await store.db
      .selectFrom('webhook_deliveries')
      .select(['event_type', 'endpoint_id'])
      .orderBy('event_type')
      .execute();
    const each = [
      { event_type: 'rating_action.created', endpoint_id: actions.id },
      { event_type: 'risk_indicator.published', endpoint_id: published.id },
    ];
    // Two publications, so each twice.
    expect(deliveries).toEqual([each[0], each[0], each[1], each[1]]);
  });
});
