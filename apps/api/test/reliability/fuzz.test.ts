import { buildOpenApiDocument } from '@svc/contracts';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { useServer } from '../support/server.js';
import { engines } from '../support/stores.js';
import { type Answer, clientFor, type NoAnswer } from './fuzz-client.js';
import { type FuzzDataset, seedDataset } from './fuzz-dataset.js';
import type { SchemaContext } from './fuzz-json-schema.js';
import { operationsOf, resolveOperation, resolverOf } from './fuzz-operations.js';
import { faultsOf } from './fuzz-oracle.js';
import { REGRESSIONS } from './fuzz-regressions.js';
import { type Draft, draftOf } from './fuzz-requests.js';
import { FuzzTally } from './fuzz-tally.js';

/**
 * Hostile input: requests generated from the OpenAPI document (valid, boundary and malformed) to every operation on
 * every store engine. Pass: no 5xx and no hang; every failure a problem+json with a documented status and code;
 * every success in its contract schema. Short by default (10,000 requests in all); FUZZ_RUNS=<n> sends n per
 * operation and engine; FC_SEED replays a printed run; FUZZ_OPS=getScore,whatIf narrows it to some operations.
 */

const SEED = process.env.FC_SEED === undefined ? 20_260_701 : Number(process.env.FC_SEED);
const MIN_REQUESTS = 10_000;
const CONCURRENCY = 8;
const TIMEOUT_MS = 15_000;

const document = buildOpenApiDocument();
const only = process.env.FUZZ_OPS?.split(',').map((s) => s.trim());
const allOperations = operationsOf(document);
const operations = allOperations.filter((o) => !only || only.includes(o.id));
const RUNS =
  process.env.FUZZ_RUNS === undefined
    ? Math.ceil(MIN_REQUESTS / (operations.length * Math.max(1, engines.length)))
    : Number(process.env.FUZZ_RUNS);
const planned = RUNS * operations.length;

const FUZZ_ENV = {
  SVC_MCP_ENABLED: 'true',
  SVC_WEBHOOK_ALLOW_LOOPBACK: 'true',
  // The fuzzer is the loopback proxy: each request names its own client, so per-IP limits rarely decide.
  TRUST_PROXY: 'loopback',
};

console.log(
  `fuzz: fast-check seed ${SEED}, ${RUNS} requests per operation and engine, ${operations.length} operations, ` +
    `${engines.join(' and ')} (replay with FC_SEED=${SEED}; long form FUZZ_RUNS=2000)`,
);

const tally = new FuzzTally();
afterAll(() => console.log(tally.report(SEED)));

/** FNV-1a: each operation draws from a seed of its own, so one operation replays alone with FUZZ_OPS. */
function seedOf(operationId: string): number {
  let hash = 0x811c9dc5;
  for (const char of operationId) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193);
  return (SEED ^ hash) | 0;
}

/** The drafts of every operation, interleaved; deletions last so the data set's webhooks serve the others first. */
function draftsFor(ctx: SchemaContext): Draft[] {
  const phases = [operations.filter((o) => o.method !== 'DELETE'), operations.filter((o) => o.method === 'DELETE')];
  return phases.flatMap((phase) => {
    const samples = phase.map((op) => fc.sample(draftOf(op, ctx), { seed: seedOf(op.id), numRuns: RUNS }));
    return Array.from({ length: RUNS }, (_, k) => samples.map((s) => s[k] as Draft)).flat();
  });
}

const excerpt = (bytes: Buffer) => bytes.toString('utf8').slice(0, 240).replace(/\s+/g, ' ');

for (const engine of engines) {
  describe(`hostile input on ${engine}: requests generated from the OpenAPI document`, () => {
    let receiver: Receiver | undefined;
    let dataset: FuzzDataset | undefined;
    beforeAll(async () => {
      receiver = await startReceiver();
    });
    afterAll(async () => {
      await receiver?.close();
    });
    const server = useServer(
      engine,
      async (s) => {
        dataset = await seedDataset(s, receiver as Receiver, planned);
      },
      { env: FUZZ_ENV },
    );

    let client: ReturnType<typeof clientFor> | undefined;
    beforeAll(() => {
      client = clientFor(server().url, CONCURRENCY);
    });
    afterAll(() => client?.close());

    describe('regressions the fuzzer found', () => {
      for (const regression of REGRESSIONS) {
        it(regression.rule, async () => {
          const data = dataset as FuzzDataset;
          const draft = regression.draft(data.known);
          const answer = (await client?.send(data.materialize(draft), TIMEOUT_MS)) as Answer | NoAnswer;
          if ('failure' in answer) throw new Error(answer.failure);
          expect(answer.status, excerpt(answer.body)).toBe(regression.status);
          expect(faultsOf(resolveOperation(allOperations, draft.method, draft.target), answer)).toEqual([]);
          if (regression.code) expect(JSON.parse(answer.body.toString('utf8')).code).toBe(regression.code);
        });
      }
    });

    it(
      `answers ${planned} requests with no 5xx or hang, documented problems, and successes in their schema`,
      async () => {
        const data = dataset as FuzzDataset;
        const resolve = resolverOf(document);
        const drafts = draftsFor({ resolve, known: (name) => data.known[name] });
        const requests = drafts.map((d) => data.materialize(d));
        const faults: string[] = [];
        const started = performance.now();
        await (client as ReturnType<typeof clientFor>).sendAll(requests, TIMEOUT_MS, (i, answer) => {
          const draft = drafts[i] as Draft;
          const op = resolveOperation(allOperations, draft.method, draft.target);
          const sent = draft.body ? ` ${excerpt(draft.body.bytes)}` : '';
          const where = `${draft.method} ${draft.target.slice(0, 160)}${sent} [${draft.operationId}#${i} ${draft.variant.join(' ')}]`;
          if ('failure' in answer) {
            tally.count(engine, draft.operationId, 'none', answer.ms);
            faults.push(`${where}: ${answer.failure}`);
            return;
          }
          tally.count(engine, draft.operationId, answer.status, answer.ms);
          for (const fault of faultsOf(op, answer)) {
            faults.push(`${where} -> ${answer.status} ${excerpt(answer.body)}: ${fault}`);
          }
        });
        tally.timed(engine, requests.length, performance.now() - started);
        expect(faults.slice(0, 25), `${faults.length} faults (seed ${SEED})`).toEqual([]);
      },
      Math.max(120_000, planned * 30),
    );
  });
}
