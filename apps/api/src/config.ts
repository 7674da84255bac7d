import { PLANNER_TYPES, type PlannerType } from '@svc/methodology';
import { z } from 'zod';
import { type FreshnessPolicy, freshnessPolicy } from './services/shared/freshness-policy.js';
import { signerFromText } from './services/shared/signing.js';
import { DEFAULT_RETRY_SCHEDULE, parseDuration, parseSchedule } from './services/webhooks/schedule.js';

/** The only module that reads process.env: one validated configuration object. */

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'], { error: 'must be true or false' })
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

/** A connection URL the drivers can read (the message never repeats it: it may hold a password). */
const UNREADABLE_URL =
  'cannot be read as a URL: check the port (1 to 65535), brackets around an IPv6 host, and percent-encoding of special characters in the user name and password';

function readableUrl(text: string): boolean {
  try {
    const url = new URL(text);
    decodeURIComponent(url.username);
    decodeURIComponent(url.password);
    return true;
  } catch {
    return false;
  }
}

/** A number of days, a whole number within bounds (the freshness policy, decision 0053). */
function days(min: number, max: number) {
  const message = `must be a whole number of days from ${min} to ${max}`;
  return z.coerce.number({ error: message }).int(message).min(min, message).max(max, message).optional();
}

/** SVC_REVIEW_CADENCE_DAYS_<PLANNER_TYPE>: each planner type's own review cadence. */
const CADENCE_PREFIX = 'SVC_REVIEW_CADENCE_DAYS_';
const cadenceVariable = (type: PlannerType) => `${CADENCE_PREFIX}${type.toUpperCase()}`;
const CADENCE_BY_TYPE = Object.fromEntries(PLANNER_TYPES.map((type) => [cadenceVariable(type), days(1, 3650)]));

const EnvSchema = z.object({
  SVC_MAX_EVALUATION_AGE_DAYS: days(0, 36500),
  SVC_REVIEW_CADENCE_DAYS: days(1, 3650),
  ...CADENCE_BY_TYPE,
  PORT: z.coerce.number({ error: 'must be a port number' }).int().min(0).max(65535).default(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL (leave it unset for the embedded SQLite store)')
    .refine(readableUrl, UNREADABLE_URL)
    .optional(),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')
    .refine(readableUrl, UNREADABLE_URL)
    .optional(),
  SVC_DATA_DIR: z.string().min(1).default('./data'),
  SVC_MASTER_KEY: z
    .string()
    .regex(/^([0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=)$/, 'must be 32 bytes as 64 hex digits or base64')
    .optional(),
  SITE_URL: z.url({ error: 'must be an absolute http(s) URL' }).optional(),
  TRUST_PROXY: z
    .string()
    .regex(
      /^(true|false|\d+|[0-9a-fA-F:.,/\s]+|loopback|linklocal|uniquelocal)$/,
      'must be true, false, a hop count or addresses',
    )
    .optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  SVC_INSTANCES: z.coerce.number({ error: 'must be a whole number' }).int().min(1).max(1000).default(1),
  SVC_STORE_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(2000),
  SVC_BODY_TIMEOUT: duration('10s', 100, 120_000),
  SVC_SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(120_000).default(10_000),
  SVC_MCP_ENABLED: bool.default(false),
  SVC_WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .default(DEFAULT_RETRY_SCHEDULE)
    .transform((text, ctx) => {
      try {
        return parseSchedule(text);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    }),
  SVC_WEBHOOK_TIMEOUT: duration('15s', 100, 60_000),
  SVC_WEBHOOK_LEASE_MARGIN: duration('30s', 1000, 600_000),
  SVC_WEBHOOK_POLL_INTERVAL: duration('1s', 10, 60_000),
  SVC_WEBHOOK_CONCURRENCY: z.coerce.number({ error: 'must be a whole number' }).int().min(1).max(256).default(16),
  SVC_WEBHOOK_ALLOW_LOOPBACK: bool.default(false),
  SVC_WEBHOOK_DISPATCH: bool.default(true),
  SVC_METRICS_PORT: z.coerce
    .number({ error: 'must be a port number from 1 to 65535 (leave it unset to serve no metrics)' })
    .int('must be a port number from 1 to 65535 (leave it unset to serve no metrics)')
    .min(1, 'must be a port number from 1 to 65535 (leave it unset to serve no metrics)')
    .max(65535, 'must be a port number from 1 to 65535 (leave it unset to serve no metrics)')
    .optional(),
  SVC_METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  SVC_OPERATOR_TOKEN: z.string().optional(),
  SVC_SIGNING_KEY: z
    .string()
    .refine(
      isSigningKey,
      'must be an Ed25519 private key in PKCS#8: a PEM (openssl genpkey -algorithm ed25519), or its base64',
    )
    .optional(),
});

/** Whether a text is a usable SVC_SIGNING_KEY (services/shared/signing.ts reads it the same way). */
function isSigningKey(text: string): boolean {
  try {
    signerFromText(text);
    return true;
  } catch {
    return false;
  }
}

/** A duration such as `15s` or `500ms`, within bounds, as milliseconds. */
function duration(fallback: string, minMs: number, maxMs: number) {
  return z
    .string()
    .default(fallback)
    .transform((text, ctx) => {
      const ms = parseDuration(text);
      if (ms === null || ms < minMs || ms > maxMs) {
        ctx.addIssue({
          code: 'custom',
          message: `must be a duration from ${minMs} ms to ${maxMs / 1000} s, e.g. 15s or 500ms`,
        });
        return z.NEVER;
      }
      return ms;
    });
}

export interface Config {
  port: number;
  host: string;
  /** Where the store lives: a PostgreSQL URL, or the embedded SQLite file. */
  store: { kind: 'postgres'; url: string } | { kind: 'sqlite'; file: string };
  redisUrl: string | null;
  dataDir: string;
  masterKey: string | null;
  siteUrl: string | null;
  trustProxy: boolean | number | string;
  logLevel: z.infer<typeof EnvSchema>['LOG_LEVEL'];
  instances: number;
  storeTimeoutMs: number;
  /** How long a request body may take to arrive in full before the answer is 408. */
  bodyTimeoutMs: number;
  shutdownGraceMs: number;
  mcpEnabled: boolean;
  webhooks: {
    /** Delays before each retry, in milliseconds. */
    retrySchedule: number[];
    timeoutMs: number;
    /** A claim's lease is twice the timeout plus this: how soon a dead dispatcher's deliveries are taken over. */
    leaseMarginMs: number;
    pollMs: number;
    concurrency: number;
    /** Plain http to loopback receivers (development and tests only). */
    allowLoopback: boolean;
    /** Whether `svc serve` runs a dispatcher (false when `svc webhooks dispatch` runs apart). */
    dispatch: boolean;
  };
  /** Where Prometheus metrics are served (a listener of their own); null: none are kept. */
  metrics: { port: number; host: string } | null;
  /** The operator token a command acts with (SVC_OPERATOR_TOKEN); the server never uses it. */
  operatorToken: string | null;
  /** The Ed25519 key statements are signed with (SVC_SIGNING_KEY); null: the store's active key, sealed there. */
  signingKey: string | null;
  /** The freshness policy: SVC_MAX_EVALUATION_AGE_DAYS, SVC_REVIEW_CADENCE_DAYS and SVC_REVIEW_CADENCE_DAYS_<TYPE>. */
  freshness: FreshnessPolicy;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Reads the configuration; a bad value stops start-up with a message naming the variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = EnvSchema.safeParse(present);
  const unknownTypes = unknownCadenceTypes(present);
  if (!parsed.success || unknownTypes.length > 0) {
    const issues = parsed.success ? [] : parsed.error.issues;
    const lines = [...issues.map((i) => `${i.path.join('.')}: ${i.message}`), ...unknownTypes];
    throw new ConfigError(`invalid configuration: ${lines.join('; ')}`);
  }
  const e = parsed.data;
  return {
    port: e.PORT,
    host: e.HOST,
    store: e.DATABASE_URL
      ? { kind: 'postgres', url: e.DATABASE_URL }
      : { kind: 'sqlite', file: `${e.SVC_DATA_DIR.replace(/\/+$/, '')}/svc.db` },
    redisUrl: e.REDIS_URL ?? null,
    dataDir: e.SVC_DATA_DIR,
    masterKey: e.SVC_MASTER_KEY ?? null,
    siteUrl: e.SITE_URL ? e.SITE_URL.replace(/\/+$/, '') : null,
    trustProxy: parseTrustProxy(e.TRUST_PROXY),
    logLevel: e.LOG_LEVEL,
    instances: e.SVC_INSTANCES,
    storeTimeoutMs: e.SVC_STORE_TIMEOUT_MS,
    bodyTimeoutMs: e.SVC_BODY_TIMEOUT,
    shutdownGraceMs: e.SVC_SHUTDOWN_GRACE_MS,
    mcpEnabled: e.SVC_MCP_ENABLED,
    webhooks: {
      retrySchedule: e.SVC_WEBHOOK_RETRY_SCHEDULE,
      timeoutMs: e.SVC_WEBHOOK_TIMEOUT,
      leaseMarginMs: e.SVC_WEBHOOK_LEASE_MARGIN,
      pollMs: e.SVC_WEBHOOK_POLL_INTERVAL,
      concurrency: e.SVC_WEBHOOK_CONCURRENCY,
      allowLoopback: e.SVC_WEBHOOK_ALLOW_LOOPBACK,
      dispatch: e.SVC_WEBHOOK_DISPATCH,
    },
    metrics: e.SVC_METRICS_PORT === undefined ? null : { port: e.SVC_METRICS_PORT, host: e.SVC_METRICS_HOST },
    operatorToken: e.SVC_OPERATOR_TOKEN ?? null,
    signingKey: e.SVC_SIGNING_KEY ?? null,
    freshness: freshnessPolicy({
      maxEvaluationAgeDays: e.SVC_MAX_EVALUATION_AGE_DAYS,
      reviewCadenceDays: e.SVC_REVIEW_CADENCE_DAYS,
      byPlannerType: Object.fromEntries(
        PLANNER_TYPES.map((type) => [
          type,
          (e as Record<string, unknown>)[cadenceVariable(type)] as number | undefined,
        ]),
      ),
    }),
  };
}

/** A SVC_REVIEW_CADENCE_DAYS_<X> whose X is no planner type: a typo that would otherwise be silently ignored. */
function unknownCadenceTypes(env: Record<string, unknown>): string[] {
  const known = new Set(PLANNER_TYPES.map(cadenceVariable));
  return Object.keys(env)
    .filter((name) => name.startsWith(CADENCE_PREFIX) && !known.has(name))
    .map(
      (name) =>
        `${name}: names no planner type (the suffix is one of ${PLANNER_TYPES.map((t) => t.toUpperCase()).join(', ')})`,
    );
}

function parseTrustProxy(value: string | undefined): boolean | number | string {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) return Number(value);
  return value;
}
