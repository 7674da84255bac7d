import type { KyselyPlugin } from 'kysely';
import { beforeEach, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../src/services/access/access.js';
import {
  type PreparedPublication,
  preparePublication,
  publishIndicator,
  publishPrepared,
} from '../../src/services/publishing/publishing.js';
import { secretBox } from '../../src/services/shared/secrets.js';
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

  it('a publication reads what it must once, before it writes: 21 statements, 12 round trips on PostgreSQL, the webhook endpoints read once for three events', async () => {
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
      'Insert providers', // pointed at the publication in force in the same statement (decision 0040)
      'Insert risk_indicators', // unless stored already, in the same statement
      'Insert indicator_history',
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
        // before the audit head
        'together: providers, risk_indicators, indicator_history, rating_actions, changelog, webhook_events, webhook_deliveries',
        'update audit_head', // the audit head moved, its seq and hash returned
        'select signing_keys', // a table none of the writes held touch: read without sending them
        // both statements as one insert (decision 0040), and the action's event: sent before the commit
        'together: audit_log, audit_head, statements, webhook_events, webhook_deliveries',
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

  it('a batch reads what its publications need once, for all of them, before it writes (decision 0040)', async () => {
    const ctx = ctxOf(store, { clock });
    const prepare = (document: ReturnType<typeof newProvider>): PreparedPublication => {
      const prepared = preparePublication(ctx, { document, framework, approvedAt: APPROVED_AT });
      if ('status' in prepared) throw new Error(`refused: ${prepared.reason}`);
      return prepared;
    };
    // One provider published before (its current indicator is read with the batch), and the store's key registered.
    const known = newProvider();
    await publishIndicator(ctx, { document: known, framework, approvedAt: APPROVED_AT });
    const moved = { ...known, inputs: { ...known.inputs } } as typeof known;
    const history = moved.inputs.operating_history_years;
    if (!history) throw new Error('the example has operating_history_years');
    moved.inputs.operating_history_years = { ...history, value: 5 };
    const batch = [prepare(newProvider()), prepare(moved), prepare(newProvider())];
    const watched = counted(store);
    const { result: outcomes, statements: sent } = await sentStatements(() =>
      publishPrepared(ctxOf(watched.store, { clock }), batch),
    );
    expect(outcomes.map((o) => o.status)).toEqual(['published', 'published', 'published']);
    const firstWrite = watched.statements.indexOf('Insert providers');
    expect(watched.statements.slice(0, firstWrite)).toEqual([
      'Select store_meta', // whether past publications are signed (before the transaction)
      'Insert store_meta', // the publication version: the publishers' lock
      'Select providers', // the three providers
      'Select risk_indicators', // the indicator the second replaces
      'Select approved_inputs', // the three makers
      'Select webhook_endpoints',
      'Select statements', // the latest statement of each of the three
      'Insert store_meta', // both sequences, three numbers each
    ]);
    // After that, each publication reads nothing: the audit head it moves is known once the first has moved it
    // (decision 0040); the signing key is read once.
    const reads = watched.statements.slice(firstWrite).filter((s) => s.startsWith('Select'));
    expect(reads).toEqual(['Select signing_keys']);
    const writes = [
      'Insert providers',
      'Insert risk_indicators',
      'Insert indicator_history',
      'Insert rating_actions',
      'Insert changelog',
      'Insert audit_log',
      'Update audit_head',
      'Insert statements',
      'Insert statements',
    ];
    expect(watched.statements.slice(firstWrite)).toEqual([
      ...writes.slice(0, 5),
      'Update audit_head', // the first moves the head, and reads it
      ...writes.slice(5, 7),
      'Select signing_keys',
      ...writes.slice(7),
      ...writes,
      ...writes,
    ]);
    if (engine === 'postgres') {
      // The batch's start: the lock, the five reads and the sequences, a round trip each. Then one a publication:
      // its writes, its two statements as one insert, sent together when the next one moves the audit head.
      expect(sent.map(summary)).toEqual([
        'select store_meta',
        'begin',
        'insert store_meta',
        'select providers',
        'select risk_indicators',
        'select approved_inputs',
        'select webhook_endpoints',
        'select statements',
        'insert store_meta',
        'together: providers, risk_indicators, indicator_history, rating_actions, changelog',
        'update audit_head', // the first moves the head and reads it back
        'select signing_keys', // once for the batch, after the first audit head
        'together: audit_log, audit_head, statements, providers, risk_indicators, indicator_history, rating_actions, changelog',
        'together: audit_head, statements, providers, risk_indicators, indicator_history, rating_actions, changelog, audit_log',
        'together: audit_head, statements',
        'commit',
      ]);
    }
  });
});
