import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  McpToolCallResponseSchema,
  PublicScoresResponseSchema,
  RiskIndicatorSchema,
  ScoresListResponseSchema,
} from '@svc/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withdrawProvider } from '../../src/services/providers/providers.js';
import {
  approveRatingActions,
  proposeOutlook,
  proposeWatch,
  proposeWatchRemoval,
} from '../../src/services/rating-actions/rating-actions.js';
import { callTool, MCP_ON, mcpKey } from '../mcp/fixtures.js';
import { manualClock } from '../support/clock.js';
import { ctxOf } from '../support/context.js';
import { example, LOW_BAND_ID, WORKED_ID, withInput } from '../support/documents.js';
import { clientIp, expectInvalid, expectJson, expectProblem, nextLinkOf } from '../support/responses.js';
import { publish, useServer } from '../support/server.js';
import { engines } from '../support/stores.js';

/**
 * `as_of` over real HTTP (decision 0029): a scripted history, then every instant around and between its events asked
 * of the detail, the keyed list, the public list and the get_provider_score tool (plain and over MCP), each answer
 * compared with what the same route served without as_of right after the events before that instant: the same
 * indicator, exactly as it was published then.
 */

const A = WORKED_ID;
const B = LOW_BAND_ID;
const A_NAME = example('worked-example').provider.name;
const A_FIRST = example('worked-example');
/** A re-published with new inputs: another indicator, another score. */
const A_SECOND = withInput(A_FIRST, 'collateral_coverage_ratio', 1.4);

const HOUR = 3_600_000;
const START = Date.parse('2026-08-01T09:00:00.000Z');
/**
 * The events, an hour apart: publish A, re-publish A with new inputs, publish B, a negative watch placed on B, A's
 * outlook set to NEGATIVE, withdraw A (which ends its outlook), reinstate A, the watch on B removed.
 */
const EVENTS = [
  'publish A',
  'publish A again, new inputs',
  'publish B',
  'watch on B',
  'outlook of A negative',
  'withdraw A',
  'reinstate A',
  'watch on B removed',
] as const;
const eventAt = (i: number) => new Date(START + i * HOUR).toISOString();
/** The present while the instants are asked about: a day after the last event. */
const NOW = new Date(START + (EVENTS.length - 1) * HOUR + 24 * HOUR).toISOString();

/** What the routes served without as_of right after an event. */
interface Served {
  at: string;
  /** Each provider's detail as served (its text), or null when 404. */
  detail: Record<string, string | null>;
  /** The keyed list's items. */
  list: unknown[];
  /** The public list's items. */
  headlines: unknown[];
}

/** The instants asked about: before anything, each event's exact instant and the millisecond before, between events, after. */
function instants(): string[] {
  const out = ['2026-04-01T00:00:00Z', '2026-07-31'];
  for (let i = 0; i < EVENTS.length; i++) {
    const at = Date.parse(eventAt(i));
    out.push(new Date(at - 1).toISOString(), eventAt(i), new Date(at + 1).toISOString());
    out.push(new Date(at + HOUR / 2).toISOString());
  }
  out.push('2026-08-01', new Date(Date.parse(NOW) - 1).toISOString(), NOW);
  return out;
}

describe.each(engines)('as_of on %s', (engine) => {
  const clock = manualClock(eventAt(0));
  const served: Served[] = [];
  let key = '';
  let agentKey = '';
  let agent: Client;
  let ip = 0;
  const server = useServer(engine, async () => {}, { clock, env: { ...MCP_ON.env, TRUST_PROXY: 'loopback' } });
  /** A public request from a client of its own (the public list allows 120 a minute per client). */
  const publicGet = (path: string, headers: Record<string, string> = {}) =>
    server().get(path, { headers: { 'x-forwarded-for': clientIp(ip++), ...headers } });

  const capture = async (at: string): Promise<Served> => {
    const detail: Record<string, string | null> = {};
    for (const id of [A, B]) {
      const res = await server().get(`/api/v1/scores/${id}`, { key });
      detail[id] = res.status === 200 ? await res.text() : null;
    }
    const list = await expectJson(await server().get('/api/v1/scores', { key }), ScoresListResponseSchema);
    const pub = await expectJson(await publicGet('/api/public/scores'), PublicScoresResponseSchema);
    return { at, detail, list: list.data, headlines: pub.data };
  };

  /** What was served right after the last event at or before `instant`; nothing before the first. */
  const expected = (instant: string): Served => {
    const t = Date.parse(instant.length === 10 ? `${instant}T23:59:59.999Z` : instant);
    const before = served.filter((s) => Date.parse(s.at) <= t);
    return before[before.length - 1] ?? { at: '', detail: { [A]: null, [B]: null }, list: [], headlines: [] };
  };

  beforeAll(async () => {
    const s = server();
    key = await s.key('PROFESSIONAL');
    agentKey = await mcpKey(s);
    // Analyst actions: proposed by one person, approved by another (the store is in open mode: names).
    const as = (by: string) => ctxOf(s.services.store, { clock, by });
    const approve = async (proposal: { id: string }) => {
      await approveRatingActions(as('Bo Approver'), { ids: [proposal.id] });
    };
    const steps: (() => Promise<void>)[] = [
      () => publish(s, A_FIRST),
      () => publish(s, A_SECOND),
      () => publish(s, example('low-band')),
      async () =>
        approve(
          await proposeWatch(as('Ann Analyst'), {
            providerId: B,
            direction: 'NEGATIVE',
            reviewBy: '2026-10-30',
            rationale: 'custodian under review',
          }),
        ),
      async () =>
        approve(await proposeOutlook(as('Ann Analyst'), { providerId: A, outlook: 'NEGATIVE', rationale: 'margins' })),
      async () => {
        await withdrawProvider(ctxOf(s.services.store, { clock }), { providerId: A, reason: 'ceased lending' });
      },
      () => publish(s, A_SECOND),
      async () =>
        approve(await proposeWatchRemoval(as('Ann Analyst'), { providerId: B, rationale: 'custodian cleared' })),
    ];
    for (const [i, step] of steps.entries()) {
      clock.set(eventAt(i));
      await step();
      // Past the public snapshot's second, so the capture reads the list after the event.
      clock.set(new Date(Date.parse(eventAt(i)) + HOUR / 4).toISOString());
      served.push(await capture(eventAt(i)));
    }
    clock.set(NOW);
    agent = new Client({ name: 'as-of-agent', version: '1.0.0' });
    await agent.connect(
      new StreamableHTTPClientTransport(new URL(`${s.url}/api/mcp`), {
        requestInit: { headers: { 'x-api-key': agentKey } },
      }),
    );
  });
  afterAll(async () => {
    await agent?.close();
  });

  it('the scripted history served what it should without as_of (the reference the instants are compared with)', () => {
    const inForce = served.map((s) => [s.detail[A] !== null, s.detail[B] !== null]);
    expect(inForce).toEqual([
      [true, false],
      [true, false],
      [true, true],
      [true, true],
      [true, true],
      [false, true],
      [true, true],
      [true, true],
    ]);
    // The outlook and watch each detail carried after each event: A's outlook NEGATIVE until its withdrawal (a
    // reinstatement starts STABLE); B's watch from its placing to its removal.
    const state = (text: string | null | undefined) => {
      if (!text) return null;
      const { outlook, watch } = JSON.parse(text) as { outlook: string; watch: { direction: string } | null };
      return `${outlook}/${watch?.direction ?? '-'}`;
    };
    expect(served.map((s) => [state(s.detail[A]), state(s.detail[B])])).toEqual([
      ['STABLE/-', null],
      ['STABLE/-', null],
      ['STABLE/-', 'STABLE/-'],
      ['STABLE/-', 'STABLE/NEGATIVE'],
      ['NEGATIVE/-', 'STABLE/NEGATIVE'],
      [null, 'STABLE/NEGATIVE'],
      ['STABLE/-', 'STABLE/NEGATIVE'],
      ['STABLE/-', 'STABLE/-'],
    ]);
    const aScores = served.map((s) =>
      s.detail[A] === null ? null : RiskIndicatorSchema.parse(JSON.parse(s.detail[A] ?? '')).final_score,
    );
    expect(aScores[0]).not.toBe(aScores[1]);
    // Reinstated from the same inputs: the same indicator, published again (its own published_at).
    const second = RiskIndicatorSchema.parse(JSON.parse(served[1]?.detail[A] ?? ''));
    const reinstated = RiskIndicatorSchema.parse(JSON.parse(served[6]?.detail[A] ?? ''));
    expect(reinstated.risk_indicator_id).toBe(second.risk_indicator_id);
    expect([second.published_at, reinstated.published_at]).toEqual([eventAt(1), eventAt(6)]);
  });

  it('the detail at every instant is the indicator then in force, byte for byte, or 404', async () => {
    for (const instant of instants()) {
      const want = expected(instant);
      for (const id of [A, B]) {
        const res = await server().get(`/api/v1/scores/${id}?as_of=${encodeURIComponent(instant)}`, { key });
        const text = await res.text();
        if (want.detail[id] === null) {
          expect(res.status, `${id} at ${instant}: ${text}`).toBe(404);
          expect(JSON.parse(text)).toMatchObject({ code: 'not_found' });
        } else {
          expect(res.status, `${id} at ${instant}: ${text}`).toBe(200);
          expect(text, `${id} at ${instant}`).toBe(want.detail[id]);
        }
      }
    }
  });

  it('the keyed list and the public list at every instant hold exactly the indicators then in force', async () => {
    for (const instant of instants()) {
      const want = expected(instant);
      const q = `as_of=${encodeURIComponent(instant)}`;
      const list = await expectJson(await server().get(`/api/v1/scores?${q}`, { key }), ScoresListResponseSchema);
      expect(list.data, `keyed list at ${instant}`).toEqual(want.list);
      expect(list.next_cursor).toBeNull();
      const pub = await expectJson(await publicGet(`/api/public/scores?${q}`), PublicScoresResponseSchema);
      expect(pub.data, `public list at ${instant}`).toEqual(want.headlines);
      expect(pub).not.toHaveProperty('next_cursor');
      // One planner type (A is a btc planner, B a fiat one): the filter keeps working with as_of.
      const btc = await expectJson(
        await server().get(`/api/v1/scores?planner_type=btc&${q}`, { key }),
        ScoresListResponseSchema,
      );
      expect(btc.data).toEqual(want.list.filter((i) => (i as { planner_type: string }).planner_type === 'btc'));
    }
  });

  it('get_provider_score with as_of, plain and over MCP, answers the detail then in force, or not_found', async () => {
    for (const instant of instants()) {
      const want = expected(instant);
      // A by its name (matched among the providers in force then), B by its id.
      for (const [id, name] of [
        [A, A_NAME],
        [B, B],
      ] as const) {
        const plain = await callTool(server(), agentKey, 'get_provider_score', { provider_name: name, as_of: instant });
        const result = (await agent.callTool({
          name: 'get_provider_score',
          arguments: { provider_name: name, as_of: instant },
        })) as CallToolResult;
        if (want.detail[id] === null) {
          const problem = await expectProblem(plain, 'not_found');
          expect(problem.errors?.map((e) => e.path)).toEqual(['body.input.provider_name']);
          expect(problem.detail).toContain('in force at');
          expect(result.isError, `${name} at ${instant}`).toBe(true);
          expect(JSON.parse(textOf(result))).toMatchObject({ code: 'not_found' });
        } else {
          const answer = await expectJson(plain, McpToolCallResponseSchema);
          expect(answer.output, `${name} at ${instant}`).toEqual(JSON.parse(want.detail[id] ?? ''));
          expect(result.isError ?? false).toBe(false);
          expect(result.structuredContent, `${name} over MCP at ${instant}`).toEqual(JSON.parse(want.detail[id] ?? ''));
        }
      }
    }
  });

  it('an offset and digits past the millisecond name the same instant', async () => {
    // 09:00:00.000Z, the first publication, written at +02:00: in force.
    const first = served[0]?.detail[A] ?? '';
    const at = await server().get(`/api/v1/scores/${A}?as_of=${encodeURIComponent('2026-08-01T11:00:00+02:00')}`, {
      key,
    });
    expect(await at.text()).toBe(first);
    // Half a millisecond before: in the millisecond before, when nothing was in force.
    const before = await server().get(`/api/v1/scores/${A}?as_of=2026-08-01T08:59:59.9995Z`, { key });
    expect(before.status).toBe(404);
    const within = await server().get(`/api/v1/scores/${A}?as_of=2026-08-01T09:00:00.0009Z`, { key });
    expect(await within.text()).toBe(first);
  });

  it('pages of the lists as of an instant: cursors hold the instant and refuse another, or none', async () => {
    const instant = eventAt(4);
    const q = `as_of=${encodeURIComponent(instant)}`;
    const want = expected(instant);
    expect(want.list).toHaveLength(2);

    const first = await server().get(`/api/v1/scores?limit=1&${q}`, { key });
    const page1 = await expectJson(first, ScoresListResponseSchema);
    expect(page1.data).toEqual(want.list.slice(0, 1));
    const link = nextLinkOf(first);
    expect(link).toContain(`as_of=${encodeURIComponent(instant)}`);
    const page2 = await expectJson(await server().get(link ?? '', { key }), ScoresListResponseSchema);
    expect(page2.data).toEqual(want.list.slice(1, 2));
    expect(page2.next_cursor).toBeNull();
    const cursor = page1.next_cursor ?? '';

    // The same instant written otherwise is the same list.
    const sameInstant = await server().get(
      `/api/v1/scores?limit=1&cursor=${cursor}&as_of=${encodeURIComponent('2026-08-01T15:00:00+02:00')}`,
      { key },
    );
    expect((await expectJson(sameInstant, ScoresListResponseSchema)).data).toEqual(want.list.slice(1, 2));
    // Another instant, or none: refused, naming the cursor and the as_of it was made with.
    const other = await expectInvalid(
      await server().get(`/api/v1/scores?limit=1&cursor=${cursor}&as_of=${encodeURIComponent(eventAt(3))}`, { key }),
      ['query.cursor'],
    );
    expect(other.errors?.[0]?.message).toContain(`was made with as_of ${instant}`);
    const none = await expectInvalid(await server().get(`/api/v1/scores?limit=1&cursor=${cursor}`, { key }), [
      'query.cursor',
    ]);
    expect(none.errors?.[0]?.message).toContain('was made with as_of');
    // A cursor made without as_of is refused with one.
    const plain = await expectJson(await server().get('/api/v1/scores?limit=1', { key }), ScoresListResponseSchema);
    const mixed = await expectInvalid(
      await server().get(`/api/v1/scores?limit=1&cursor=${plain.next_cursor}&${q}`, { key }),
      ['query.cursor'],
    );
    expect(mixed.errors?.[0]?.message).toContain('was made without as_of');

    // The public list's pages likewise.
    const pub1 = await publicGet(`/api/public/scores?limit=1&${q}`);
    const pubPage1 = await expectJson(pub1, PublicScoresResponseSchema);
    expect(pubPage1.data).toEqual(want.headlines.slice(0, 1));
    const pubLink = nextLinkOf(pub1);
    expect(pubLink).toContain(`as_of=${encodeURIComponent(instant)}`);
    const pubPage2 = await expectJson(await publicGet(pubLink ?? ''), PublicScoresResponseSchema);
    expect(pubPage2.data).toEqual(want.headlines.slice(1, 2));
    expect(pubPage2.next_cursor).toBeNull();
    await expectInvalid(await publicGet(`/api/public/scores?limit=1&cursor=${pubPage1.next_cursor}`), ['query.cursor']);
    const plainPub = await expectJson(await publicGet('/api/public/scores?limit=1'), PublicScoresResponseSchema);
    await expectInvalid(await publicGet(`/api/public/scores?limit=1&cursor=${plainPub.next_cursor}&${q}`), [
      'query.cursor',
    ]);
  });

  it('the public list as of an instant is built once per instant and publication, with its own strong ETag', async () => {
    const instant = new Date(Date.parse(eventAt(1)) + 5).toISOString();
    const q = `as_of=${encodeURIComponent(instant)}`;
    const first = await publicGet(`/api/public/scores?${q}`);
    const body = await expectJson(first, PublicScoresResponseSchema);
    expect(body.cached).toBe(false);
    expect(first.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    const again = await publicGet(`/api/public/scores?${q}`);
    expect((await expectJson(again, PublicScoresResponseSchema)).cached).toBe(true);
    // The bytes served from now on (cached: true) and their tag, not the current list's.
    const etag = again.headers.get('etag') ?? '';
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    expect(etag).not.toBe(first.headers.get('etag'));
    expect(etag).not.toBe((await publicGet('/api/public/scores')).headers.get('etag'));
    const notModified = await publicGet(`/api/public/scores?${q}`, {
      'if-none-match': `"x", ${etag.replace(/^"/, 'W/"')}`,
    });
    expect(notModified.status).toBe(304);

    // A later publication (a provider new since) leaves the past alone, and the list is built again.
    await publish(server(), example('multiple-caps'));
    clock.set(new Date(Date.parse(NOW) + 2000).toISOString());
    const rebuilt = await expectJson(await publicGet(`/api/public/scores?${q}`), PublicScoresResponseSchema);
    expect(rebuilt.cached).toBe(false);
    expect(rebuilt.data).toEqual(body.data);
    // An instance keeps the 8 instants asked most recently: after 8 others, this one is built again.
    for (let k = 1; k <= 8; k++) {
      const other = new Date(Date.parse(eventAt(0)) + k).toISOString();
      await expectJson(
        await publicGet(`/api/public/scores?as_of=${encodeURIComponent(other)}`),
        PublicScoresResponseSchema,
      );
    }
    const evicted = await expectJson(await publicGet(`/api/public/scores?${q}`), PublicScoresResponseSchema);
    expect([evicted.cached, evicted.data]).toEqual([false, body.data]);
    expect((await expectJson(await publicGet(`/api/public/scores?${q}`), PublicScoresResponseSchema)).cached).toBe(
      true,
    );
    clock.set(NOW);
  });

  describe('refusals: 400 problem+json naming as_of, on every route and the tool', () => {
    const bad: [string, string][] = [
      ['yesterday', 'is not a date or timestamp'],
      ['2026-02-30', 'is not a date or timestamp'],
      ['2026-08-01T25:00:00Z', 'is not a date or timestamp'],
      ['2026-08-01T09:00:60Z', 'is not a date or timestamp'],
      ['2026-08-01T09:00:00', 'is not a date or timestamp'],
      ['2026-08-01 09:00:00Z', 'is not a date or timestamp'],
      ['', 'is not a date or timestamp'],
      ['2026-03-31', 'is before 2026-04-01'],
      ['2026-03-31T23:59:59.999Z', 'is before 2026-04-01'],
      ['2026-04-01T01:00:00+02:00', 'is before 2026-04-01'],
    ];
    const future = (): [string, string][] => [
      [new Date(Date.parse(NOW) + 1).toISOString(), 'is in the future'],
      [NOW.slice(0, 10), 'is in the future: a date means the end of that day'],
      ['2030-01-01', 'is in the future'],
    ];

    it('on the detail, the keyed list and the public list', async () => {
      for (const [value, message] of [...bad, ...future()]) {
        const q = `as_of=${encodeURIComponent(value)}`;
        for (const [path, withKey] of [
          [`/api/v1/scores/${A}?${q}`, true],
          [`/api/v1/scores?${q}`, true],
          [`/api/v1/scores?limit=5&planner_type=fiat&${q}`, true],
          [`/api/public/scores?${q}`, false],
          [`/api/public/scores?limit=5&${q}`, false],
        ] as const) {
          const res = withKey ? await server().get(path, { key }) : await publicGet(path);
          const problem = await expectInvalid(res, ['query.as_of']);
          expect(problem.errors?.[0]?.message, `${path}`).toContain(message);
        }
      }
      // Given twice: refused rather than guessed at.
      await expectInvalid(await server().get(`/api/v1/scores/${A}?as_of=2026-08-01&as_of=2026-08-01`, { key }), [
        'query.as_of',
      ]);
    });

    it('on get_provider_score, plain and over MCP', async () => {
      for (const [value, message] of [...bad, ...future()]) {
        const plain = await callTool(server(), agentKey, 'get_provider_score', { provider_name: A_NAME, as_of: value });
        const problem = await expectInvalid(plain, ['body.input.as_of']);
        expect(problem.errors?.[0]?.message, value).toContain(message);
        const result = (await agent.callTool({
          name: 'get_provider_score',
          arguments: { provider_name: A_NAME, as_of: value },
        })) as CallToolResult;
        expect(result.isError).toBe(true);
        const refusal = JSON.parse(textOf(result)) as { code: string; errors: { path: string; message: string }[] };
        expect(refusal.code).toBe('invalid_request');
        expect(refusal.errors.map((e) => e.path)).toEqual(['arguments.as_of']);
        expect(refusal.errors[0]?.message).toContain(message);
      }
    });
  });
});

function textOf(result: CallToolResult): string {
  const [first] = result.content;
  return first?.type === 'text' ? first.text : 'null';
}
