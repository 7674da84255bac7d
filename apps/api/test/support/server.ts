import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Deprecations, Tier } from '@svc/contracts';
import type { Framework } from '@svc/methodology';
import type { Logger } from 'pino';
import { afterAll, beforeAll, expect } from 'vitest';
import type { Clock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import { type RunningServer, startServer } from '../../src/server.js';
import { createKey, createWorkspace, hashKey, revokeKey } from '../../src/services/access/access.js';
import { type PublishOutcome, publishIndicator } from '../../src/services/publishing/publishing.js';
import { secretBox } from '../../src/services/shared/secrets.js';
import { findApiKeyByHash } from '../../src/store/repositories/api-keys.js';
import type { StoreLocation } from '../../src/store/store.js';
import { ctxOf, TEST_FRESHNESS } from '../support/context.js';
import { framework, validated } from './documents.js';
import { freePort } from './ports.js';
import { type Engine, freshLocation, retryOnSchemaRace } from './stores.js';
import { acceptTestTerms, enableAgentTools } from './terms.js';

export interface TestServer extends RunningServer {
  engine: Engine;
  /** Where its store is, reached directly (not through `storeUrl`). */
  location: StoreLocation;
  /** A new workspace with a key of the tier; returns the key. */
  key(tier: Tier): Promise<string>;
  /** The same, with the key's id, its workspace and the workspace's webhook signing secret. */
  issueKey(tier: Tier): Promise<IssuedKey>;
  /** A JSON request: the body serialised, the key in x-api-key. */
  send(method: string, path: string, body: unknown, key?: string): Promise<Response>;
  /** Publishes an approved-inputs document (JSON text or value) through the publishing service. */
  publish(document: unknown, approvedAt?: string): Promise<PublishOutcome['status']>;
  /** A GET (or another method in `init`) by fetch, asking for the bytes as they are unless `init` names a coding. */
  get(path: string, init?: RequestInit & { key?: string }): Promise<Response>;
  /** Another API process over the same store and configuration, as a rolling start adds one; stop() stops it too. */
  startInstance(): Promise<RunningServer>;
  stop(): Promise<void>;
}

export interface IssuedKey {
  key: string;
  keyId: string;
  workspaceId: string;
  webhookSecret: string;
}

/** The master key of every test server: the harness seals secrets with it, the dispatcher opens them. */
export const TEST_MASTER_KEY = '07'.repeat(32);

export interface TestServerOptions {
  /** Environment on top of the test defaults (loopback, any port, silent, a temporary SVC_DATA_DIR). */
  env?: Record<string, string>;
  clock?: Clock;
  /** Where the server logs (by default nowhere: LOG_LEVEL silent). */
  logger?: Logger;
  /** PostgreSQL only: the database server URL the API connects through (a proxy); the schema is still a fresh one. */
  storeUrl?: string;
  /** PostgreSQL only: the database (a URL on the test server) the fresh schema is made in, instead of the test one. */
  postgresDatabaseUrl?: string;
  /** Every framework the server knows (default: the engine's built-in ones); a test adds a test framework. */
  frameworks?: readonly Framework[];
  /** Routes the server deprecates besides the contract's: a test deprecates an existing route. */
  deprecations?: Deprecations;
  /** Serve Prometheus metrics on a free loopback port of their own (SVC_METRICS_PORT); see `metricsUrl`. */
  metrics?: boolean;
}

/**
 * A real server on a loopback port over a fresh store of the engine. A start that lost the race with
 * another test file dropping its schema (see isSchemaRace) is retried on a new location.
 */
export function startTestServer(engine: Engine, options: TestServerOptions = {}): Promise<TestServer> {
  return retryOnSchemaRace(() => startOnce(engine, options));
}

async function startOnce(engine: Engine, options: TestServerOptions): Promise<TestServer> {
  const place = await freshLocation(engine, options.postgresDatabaseUrl);
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-api-'));
  const removePlaces = async () => {
    await place.cleanup();
    await rm(dataDir, { recursive: true, force: true });
  };
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    SVC_DATA_DIR: dataDir,
    SVC_MASTER_KEY: TEST_MASTER_KEY,
    SVC_WEBHOOK_ALLOW_LOOPBACK: 'true',
    // The tests' freshness policy (TEST_FRESHNESS, decision 0053): the examples publish by the real clock.
    SVC_MAX_EVALUATION_AGE_DAYS: String(TEST_FRESHNESS.maxEvaluationAgeDays),
    ...(options.metrics ? { SVC_METRICS_PORT: String(await freePort()) } : {}),
    ...options.env,
  });
  let storeLocation = place.location;
  if (options.storeUrl) {
    if (storeLocation.kind !== 'postgres') throw new Error('storeUrl is for PostgreSQL stores');
    storeLocation = { ...storeLocation, url: options.storeUrl };
  }
  const start = () =>
    startServer(config, {
      storeLocation,
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.logger ? { logger: options.logger } : {}),
      ...(options.frameworks ? { frameworks: options.frameworks } : {}),
      ...(options.deprecations ? { deprecations: options.deprecations } : {}),
    });
  const running = await start().catch(async (error: unknown) => {
    await removePlaces();
    throw error;
  });
  const { store, clock } = running.services;
  const box = secretBox(Buffer.from(TEST_MASTER_KEY, 'hex'));
  const instances: RunningServer[] = [];
  const issueKey = async (tier: Tier): Promise<IssuedKey> => {
    const ws = await createWorkspace(ctxOf(store, { clock, box }), { name: `test ${tier}` });
    await acceptTestTerms(ctxOf(store, { clock }), ws.workspace_id);
    const created = await createKey(ctxOf(store, { clock }), { workspaceId: ws.workspace_id, tier });
    return { key: created.key, keyId: created.key_id, workspaceId: ws.workspace_id, webhookSecret: ws.webhook_secret };
  };
  return {
    ...running,
    engine,
    location: place.location,
    issueKey,
    async key(tier) {
      return (await issueKey(tier)).key;
    },
    async publish(document, approvedAt = '2026-06-02T10:00:00.000Z') {
      const outcome = await publishIndicator(ctxOf(store, { clock }), {
        document: validated(document),
        framework,
        approvedAt,
      });
      running.services.snapshot.invalidate();
      return outcome.status;
    },
    get(path, init = {}) {
      const { key, headers, ...rest } = init;
      return fetch(`${running.url}${path}`, {
        ...rest,
        // The bytes as they are unless the test asks for a coding: fetch would ask for gzip, and the public list's
        // gzip form is offered once built in the background, so two requests could get two representations
        // (two ETags). test/http/compression.test.ts asks for each coding itself.
        headers: {
          'accept-encoding': 'identity',
          ...(key ? { 'x-api-key': key } : {}),
          ...(headers as Record<string, string>),
        },
      });
    },
    send(method, path, body, key) {
      return fetch(`${running.url}${path}`, {
        method,
        headers: { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}) },
        body: JSON.stringify(body),
      });
    },
    async startInstance() {
      const instance = await retryOnSchemaRace(start);
      instances.push(instance);
      return instance;
    },
    async stop() {
      for (const instance of instances.splice(0)) await instance.close();
      await running.close();
      await removePlaces();
    },
  };
}

/** A test server for the enclosing describe block, started before its tests and stopped after them. */
export function useServer(
  engine: Engine,
  setup: (server: TestServer) => Promise<void> = async () => {},
  options: TestServerOptions = {},
): () => TestServer {
  let server: TestServer | undefined;
  beforeAll(async () => {
    server = await startTestServer(engine, options);
    await setup(server);
  });
  afterAll(async () => {
    await server?.stop();
  });
  return () => {
    if (!server) throw new Error('the test server has not started');
    return server;
  };
}

/** Publishes a document and insists it was published (not refused, not unchanged). */
export async function publish(server: TestServer, document: unknown): Promise<void> {
  expect(await server.publish(document)).toBe('published');
}

/** Revokes a key issued by the test server's `key(tier)`. */
export async function revoke(server: TestServer, key: string): Promise<void> {
  const row = await findApiKeyByHash(server.services.store.db, hashKey(key));
  if (!row) throw new Error('no such key');
  await revokeKey(ctxOf(server.services.store, { clock: server.services.clock }), { keyId: row.id });
}

/**
 * A key of `tier` in a new workspace (agent tools enabled, so the MCP route reaches the key check) that was
 * issued two hours ago by the server's clock with a one-hour lifetime: expired an hour ago.
 */
export async function expiredKey(server: TestServer, tier: Tier = 'ENTERPRISE'): Promise<string> {
  const { store, clock } = server.services;
  const box = secretBox(Buffer.from(TEST_MASTER_KEY, 'hex'));
  const twoHoursAgo: Clock = { now: () => new Date(clock.now().getTime() - 2 * 3_600_000) };
  const ws = await createWorkspace(ctxOf(store, { clock: twoHoursAgo, box }), { name: `expired ${tier}` });
  await enableAgentTools(ctxOf(store, { clock: twoHoursAgo }), ws.workspace_id);
  return (
    await createKey(ctxOf(store, { clock: twoHoursAgo }), {
      workspaceId: ws.workspace_id,
      tier,
      name: 'expired',
      expiresInMs: 3_600_000,
    })
  ).key;
}

/** A key of the right form that was never issued. */
export const UNKNOWN_KEY = `svc_live_${'A'.repeat(43)}`;
