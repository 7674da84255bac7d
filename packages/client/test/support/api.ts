import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  acceptTerms,
  addIssuance,
  approveInputs,
  createKey,
  createWorkspace,
  enableMcp,
  freshnessPolicy,
  generateSigner,
  loadConfig,
  openStore,
  publishRun,
  type RunningServer,
  type StoreLocation,
  secretBox,
  standaloneContext,
  startServer,
  submitInputs,
  withdrawProvider,
} from '@svc/api';
import type { Tier } from '@svc/contracts';

/**
 * The real API, started in this process through `@svc/api` on a loopback port over a fresh store, and the few
 * operator actions the client's tests need (keys, publications, issuances), done through the API's own services.
 */

export type Engine = 'sqlite' | 'postgres';

export const POSTGRES_URL = process.env.SVC_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const MASTER_KEY = '07'.repeat(32);

export interface Workspace {
  key: string;
  /** The workspace's webhook signing secret, `whsec_…`. */
  webhookSecret: string;
}

export interface RealApi {
  url: string;
  engine: Engine;
  running: RunningServer;
  /** A new workspace with one key of the tier (and the agent tools enabled, when asked). */
  workspace(tier: Tier, options?: { mcp?: boolean }): Promise<Workspace>;
  key(tier: Tier): Promise<string>;
  /** Submits, approves (maker-checker) and publishes approved-inputs documents; every one must publish. */
  publish(documents: readonly InputsDoc[]): Promise<void>;
  /** Withdraws a provider's published indicator, as `svc provider withdraw` does. */
  withdraw(providerId: string, reason: string): Promise<void>;
  /** Records an upcoming issuance; returns its id. */
  addIssuance(name: string): Promise<string>;
  stop(): Promise<void>;
}

export async function startApi(engine: Engine = 'sqlite'): Promise<RealApi> {
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-client-'));
  const place = engine === 'postgres' ? await freshSchema() : null;
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: process.env.SVC_TEST_LOG_LEVEL ?? 'silent',
    SVC_DATA_DIR: dataDir,
    SVC_MASTER_KEY: MASTER_KEY,
    SVC_WEBHOOK_ALLOW_LOOPBACK: 'true',
    SVC_WEBHOOK_POLL_INTERVAL: '50ms',
    SVC_SHUTDOWN_GRACE_MS: '0',
    SVC_MCP_ENABLED: 'true',
  });
  const cleanup = async () => {
    await place?.drop();
    await rm(dataDir, { recursive: true, force: true });
  };
  const running = await startServer(config, place ? { storeLocation: place.location } : {}).catch(async (error) => {
    await cleanup();
    throw error;
  });
  const { store, clock, snapshot } = running.services;
  const box = secretBox(Buffer.from(MASTER_KEY, 'hex'));
  // The key the test's publications are signed with.
  const signer = generateSigner();
  const as = (by?: string) =>
    standaloneContext(store, {
      actor: by ? { kind: 'operator', id: null, name: by } : { kind: 'system' },
      clock,
      box,
      signer,
      // The examples are evaluated in 2026-06 and published by the real clock: a century's maximum age (decision 0053).
      freshness: freshnessPolicy({ maxEvaluationAgeDays: 36500 }),
    });
  const workspace = async (tier: Tier, options: { mcp?: boolean } = {}): Promise<Workspace> => {
    const ws = await createWorkspace(as(), { name: `client tests ${tier}` });
    await acceptTerms(as(), {
      workspaceId: ws.workspace_id,
      administrator: 'Client Tests Administrator',
      email: 'admin@client-tests.example',
      preview: options.mcp === true,
    });
    if (options.mcp) await enableMcp(as(), { workspaceId: ws.workspace_id, enabled: true });
    const created = await createKey(as(), { workspaceId: ws.workspace_id, tier });
    return { key: created.key, webhookSecret: ws.webhook_secret };
  };
  return {
    url: running.url,
    engine,
    running,
    workspace,
    async key(tier) {
      return (await workspace(tier)).key;
    },
    async publish(documents) {
      const providerIds = documents.map((d) => d.provider.id);
      await submitInputs(as('analyst.maker'), {
        documents: documents.map((document) => ({ source: `${document.provider.name}.json`, document })),
      });
      await approveInputs(as('analyst.checker'), { providerIds });
      const report = await publishRun(as(), { providers: providerIds });
      const refused = report.outcomes.filter((o) => o.status !== 'published');
      if (refused.length > 0) throw new Error(`not published: ${JSON.stringify(refused)}`);
      snapshot.invalidate();
    },
    async withdraw(providerId, reason) {
      await withdrawProvider(as(), { providerId, reason });
      snapshot.invalidate();
    },
    async addIssuance(name) {
      const row = await addIssuance(as(), {
        issuer_name: name,
        instrument_name: `${name} 8.25% Series A Preferred`,
        type: 'preferred_share',
        status: 'ANNOUNCED',
        currency: 'USD',
        target_amount: '25000000',
        coupon_rate_pct: '8.25',
        coupon_frequency: 'quarterly',
      });
      return row.id;
    },
    async stop() {
      await running.close();
      await cleanup();
    },
  };
}

/** A new PostgreSQL schema of its own, dropped afterwards. */
async function freshSchema(): Promise<{ location: StoreLocation; drop(): Promise<void> }> {
  const schema = `client_${randomBytes(6).toString('hex')}`;
  const admin = async (change: 'create' | 'drop') => {
    const store = openStore({ kind: 'postgres', url: POSTGRES_URL });
    try {
      if (change === 'create') await store.db.schema.createSchema(schema).execute();
      else await store.db.schema.dropSchema(schema).ifExists().cascade().execute();
    } finally {
      await store.close();
    }
  };
  await admin('create');
  return { location: { kind: 'postgres', url: POSTGRES_URL, schema }, drop: () => admin('drop') };
}

/** Whether PostgreSQL answers here; the PostgreSQL smoke test is skipped (with a line saying so) when not. */
export async function postgresReachable(): Promise<boolean> {
  const { hostname, port } = new URL(POSTGRES_URL);
  const ok = await new Promise<boolean>((resolve) => {
    const socket = new Socket();
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.connect(Number(port || 5432), hostname, () => done(true));
  });
  if (!ok)
    console.warn(`SKIPPED: PostgreSQL at ${hostname}:${port} is not reachable; its client smoke test is skipped`);
  return ok;
}

// ---- the published example providers ----

/** An approved-inputs document as its JSON holds it. */
export interface InputsDoc {
  provider: { id: string; name: string; planner_type: string; [field: string]: unknown };
  evaluation_date: string;
  inputs: Record<string, { value: unknown; [field: string]: unknown }>;
}

/** The example documents a publication run publishes (stale-evidence and missing-inputs are refused by design). */
export type ExampleName = 'worked-example' | 'low-band' | 'multiple-caps';

export const EXAMPLE_NAMES: readonly ExampleName[] = ['worked-example', 'low-band', 'multiple-caps'];

const EXAMPLES = new URL('../../../../examples/dcrf-1.0/', import.meta.url);

/** A fresh copy of one of the repository's example documents (all four publishable; their numbers are plain). */
export function example(name: ExampleName): InputsDoc {
  return JSON.parse(readFileSync(new URL(`${name}.json`, EXAMPLES), 'utf8')) as InputsDoc;
}

/** The document with one approved input's value changed: a new indicator, and a score change in the feed. */
export function withInput(doc: InputsDoc, key: string, value: unknown): InputsDoc {
  const copy = structuredClone(doc);
  const input = copy.inputs[key];
  if (!input) throw new Error(`the document has no input ${key}`);
  input.value = value;
  return copy;
}

/** A fourth provider: the worked example's evidence under another id and an accented name. */
export function accentedProvider(): InputsDoc {
  const doc = example('worked-example');
  doc.provider = { ...doc.provider, id: '00000000-0000-4000-8000-0000000000a1', name: 'Ångström Sats Vault' };
  return doc;
}

/** The providers the suites publish: the three examples and the accented one, two of them btc planners. */
export function exampleProviders(): InputsDoc[] {
  return [...EXAMPLE_NAMES.map(example), accentedProvider()];
}

/** A well-formed provider id nobody publishes. */
export const UNKNOWN_PROVIDER_ID = '0f0f0f0f-0000-4000-8000-000000000000';
