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
import { sentStatements } from '../support/round-trips.js';
import { engines, useFreshStore } from '../support/stores.js';

// Decisions 0035 and 0038: a publication's statements and its round trips to PostgreSQL, counted. The counts below
// are what the transaction needs, and a change that adds one should say why.

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

/** A round trip to PostgreSQL, summed up: its kind and tables (each run of writes sent together, their tables). */
function summary(text: string): string {
  if (text.startsWith('with "w0" as (')) {
    const tables = [...text.matchAll(/"w\d+" as \((?:insert into|update) "(\w+)"/g)].map((m) => m[1]);
    return `together: ${tables.join(', ')}`;
  }
  const write = /^(insert into|update) "(\w+)"/.exec(text);
  if (write) return `${write[1] === 'update' ? 'update' : 'insert'} ${write[2]}`;
  const read = /^select .*? from "(\w+)"/.exec(text);
  return read ? `select ${read[1]}` : text;
}

describe.each(engines)('the statements of a publication on %s', (engine) => {
  const store = useFreshStore(engine);
  const clock = manualClock();
  beforeEach(() => {
    clock.set('2026-07-01T09:00:00.000Z');
  });

  it('a publication reads what it must once, before it writes: 22 statements, 14 round trips on PostgreSQL, the webhook endpoints read once for three events', async () => {
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
    const { result: outcome, statements: sent } = await sentStatements(() =>
      publishIndicator(ctxOf(watched.store, { clock }), {
        document: doc,
        framework,
        approvedAt: APPROVED_AT,
      }),
    );
    expect(outcome.status).toBe('published');
    expect(watched.statements).toEqual([
      'Select store_meta', // whether past publications are signed (before the transaction)
      'Insert store_meta', // the publication version, sequence and rating action sequence, in one statement: the lock
      'Select providers',
      // What the rest of the transaction reads, read before it writes (decision 0038)
      'Select approved_inputs', // who proposed and approved: the rating action's maker
      'Select webhook_endpoints', // once, for the three events a publication may emit
      'Select statements', // once: the action's statement follows the publication's, just signed
      'Insert providers',
      'Insert risk_indicators', // unless stored already, in the same statement
      'Insert indicator_history',
      'Update providers',
      'Insert rating_actions',
      'Insert changelog',
      'Insert webhook_events',
      'Insert webhook_deliveries',
      'Update audit_head',
      'Insert audit_log',
      'Update audit_head',
      'Select signing_keys', // after the audit head (a rotation that retired the key is seen); once for both statements
      'Insert statements',
      'Insert statements',
      'Insert webhook_events', // rating_action.created, to the endpoint subscribed to it
      'Insert webhook_deliveries',
    ]);
    if (engine === 'postgres') {
      // On PostgreSQL the writes go together (decision 0038): a round trip each for the reads, and one for each run
      // of writes, sent before a read of a table they write, a second write to a table, a write that returns
      // something, and the commit.
      expect(sent.map(summary)).toEqual([
        'select store_meta',
        'begin',
        'insert store_meta',
        'select providers',
        'select approved_inputs',
        'select webhook_endpoints',
        'select statements',
        'together: providers, risk_indicators, indicator_history', // sent when the provider is written again
        'together: providers, rating_actions, changelog, webhook_events, webhook_deliveries', // before the audit head
        'update audit_head', // the audit head moved, its seq and hash returned
        'select signing_keys', // a table none of the writes held touch: read without sending them
        'together: audit_log, audit_head, statements', // sent when the second statement is written
        'together: statements, webhook_events, webhook_deliveries', // sent before the commit
        'commit',
      ]);
    }
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
