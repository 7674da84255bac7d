import type { Config, OperatorRole, SecretBox, ServiceContext, Signer, Store } from '@svc/api';
import type { ServiceErrorCode } from '@svc/contracts';
import { asCliError, CliError, type ErrorCode as CliErrorCode } from './errors.js';
import { saidOnce, writeErr } from './io.js';

/** The process environment, handed over once by bin.ts; only the API's loadConfig reads it. */
export type Environment = Readonly<Record<string, string | undefined>>;

export type Api = typeof import('@svc/api');

/** What an operations command works with: the API package and the validated configuration. */
export interface Operations {
  api: Api;
  config: Config;
}

/**
 * Loads the API package (on demand, so verifying, and scoring under a framework named with --framework, do not
 * pay for Express and the database drivers) and the configuration; a bad variable is reported by name (exit 2).
 */
export async function operations(env: Environment): Promise<Operations> {
  const api = await import('@svc/api');
  try {
    return { api, config: api.loadConfig(env) };
  } catch (error) {
    throw explain(api, error);
  }
}

/** Opens the configured store, runs the work, closes the store; store and access failures get their own codes. */
export async function withStore<T>(ops: Operations, work: (store: Store) => Promise<T>): Promise<T> {
  const { api, config } = ops;
  let store: Store;
  try {
    store = api.openStore(config.store, { timeoutMs: config.storeTimeoutMs });
  } catch (error) {
    throw storeUnavailable(config, error);
  }
  try {
    return await work(store);
  } catch (error) {
    throw explain(api, error, config);
  } finally {
    await store.close().catch(() => {});
  }
}

/** withStore on a store migrated first, so an operations command works on a fresh data folder. */
export function withMigratedStore<T>(ops: Operations, work: (store: Store) => Promise<T>): Promise<T> {
  return withStore(ops, async (store) => {
    await ops.api.migrate(store);
    return work(store);
  });
}

/** Who runs an operator's verbs, and with what. */
export interface OperatorOptions {
  /** The name given with --by: taken in open mode only. */
  by?: string | undefined;
  /** The option that name came with, as refusals name it (default --by; methodology publish: --signed-off-by). */
  byOption?: string | undefined;
  box?: SecretBox | undefined;
  /**
   * The command changes the record: it acts for the holder of SVC_OPERATOR_TOKEN (refused when the token is
   * unknown or revoked, or missing once the store has operators), or in open mode for the name given with --by,
   * with a warning. The verbs check the role.
   */
  changes?: boolean;
  /**
   * The command signs statements (publishes or withdraws) as an operator of this role: the role is checked first
   * (a refusal writes nothing, not even the store's first signing key), then the context gets the signing key
   * (SVC_SIGNING_KEY, or the store's active key opened with the master key, generated on the first signing).
   */
  signsAs?: { role: OperatorRole; doing: string };
  /** The command ends open mode itself (the first `operator add`): no warning that the store is in it. */
  endsOpenMode?: boolean;
}

/**
 * withMigratedStore for the service verbs: the work gets the context they take, acting for the operator, on the
 * system clock.
 */
export function withOperator<T>(
  ops: Operations,
  work: (ctx: ServiceContext) => Promise<T>,
  options: OperatorOptions = {},
): Promise<T> {
  return withMigratedStore(ops, async (store) => {
    const actor = options.changes
      ? await ops.api.resolveOperator(store, {
          token: ops.config.operatorToken ?? undefined,
          by: options.by,
          byOption: options.byOption,
          needsOperator: true,
        })
      : { kind: 'operator' as const, id: null, name: options.by ?? null, open: false };
    if (actor.open && !options.endsOpenMode) warnOpenMode(ops);
    const context = (extra: { box?: SecretBox | undefined; signer?: Signer | undefined }) =>
      ops.api.standaloneContext(store, {
        actor: { kind: 'operator', id: actor.id, name: actor.name },
        clock: ops.api.systemClock,
        freshness: ops.config.freshness,
        ...extra,
      });
    const signs = options.signsAs;
    if (signs === undefined) return work(context({ box: options.box }));
    await ops.api.authorise(context({}), signs.role, signs.doing);
    const box = options.box ?? masterSecretBox(ops);
    const signer = await ops.api.resolveSigner(store, { configured: ops.config.signingKey, box });
    const signing = context({ box, signer });
    // A key new to the store comes into use only as an administrator's act, recorded; anyone else stops here.
    await ops.api.admitSigner(signing, signer);
    return work(signing);
  });
}

/** Says once per run that the store is in open mode (stderr, so --json output stays one document). */
export function warnOpenMode(ops: Operations): void {
  if (saidOnce()) return;
  writeErr(`warning: ${ops.api.OPEN_MODE_WARNING}\n`);
}

/** The box that seals workspace secrets: SVC_MASTER_KEY, or the key file in SVC_DATA_DIR (created on first use). */
export function masterSecretBox(ops: Operations): SecretBox {
  const { api, config } = ops;
  try {
    return api.secretBox(api.loadMasterKey(config.masterKey, config.dataDir));
  } catch (error) {
    throw masterKeyUnusable(config, error);
  }
}

/** A failure to read or make the master key, as the CLI reports it (the key's place named, never the key). */
function masterKeyUnusable(config: Config, error: unknown): CliError {
  const where = config.masterKey ? 'SVC_MASTER_KEY' : `${config.dataDir}/master.key`;
  return new CliError('master_key_unusable', `cannot use the master key (${where}): ${messageOf(error)}`, {
    cause: error,
  });
}

/** "SQLite store data/svc.db" or "PostgreSQL store db.example:5432/svc", never a password. */
export function describeStore(config: Config): string {
  if (config.store.kind === 'sqlite') return `SQLite store ${config.store.file}`;
  try {
    const url = new URL(config.store.url);
    return `PostgreSQL store ${url.host}${url.pathname}`;
  } catch {
    return 'PostgreSQL store';
  }
}

/** The API's errors as the CLI reports them; anything else goes on to the shared error path unchanged. */
export function explain(api: Api, error: unknown, config?: Config): unknown {
  if (error instanceof CliError) return error;
  if (error instanceof api.RunStopped) return runStopped(api, error, config);
  if (error instanceof api.ConfigError) return new CliError('invalid_config', error.message, { cause: error });
  if (error instanceof api.ServiceError) {
    const problems = error.problems.map((p) => ({ file: p.source, path: p.path, message: p.message }));
    return new CliError(cliCodeOf(error.code), error.message, { problems, cause: error });
  }
  if (config && api.isStoreUnavailable(error)) return storeUnavailable(config, error);
  if (config && error instanceof api.MasterKeyError) return masterKeyUnusable(config, error);
  return error;
}

/**
 * A publishing run stopped partway: its cause's code and exit status, the message saying how far it got, and the
 * report of what it did (published, unchanged, refused) and did not reach in the details (printed whole with --json;
 * `svc publish` prints it as a table first).
 */
function runStopped(api: Api, error: InstanceType<Api['RunStopped']>, config?: Config): CliError {
  const explained = explain(api, error.cause, config);
  const cause = explained instanceof CliError ? explained : asCliError(explained);
  const { report } = error;
  const done = report.outcomes.length;
  const total = done + report.not_attempted.length;
  return new CliError(
    cause.code,
    `the run stopped after ${done} of ${total} providers (${report.counts.published} published, ${report.counts.unchanged} unchanged, ${report.counts.refused} refused; ${report.not_attempted.length} not attempted): ${cause.message}`,
    { problems: cause.problems, details: { report }, cause: error },
  );
}

/**
 * A verb's refusal by its code: an unknown id is `not_found`, a state that forbids it (a disabled webhook, one
 * endpoint too many) is `refused`, a value the API calls an invalid request is `invalid_value`.
 */
function cliCodeOf(code: ServiceErrorCode): CliErrorCode {
  switch (code) {
    case 'not_found':
    case 'refused':
    case 'invalid_value':
    case 'invalid_inputs':
      return code;
    case 'webhook_disabled':
    case 'too_many_webhooks':
      return 'refused';
    case 'unavailable':
      return 'store_unavailable';
    default:
      return 'invalid_value';
  }
}

function storeUnavailable(config: Config, error: unknown): CliError {
  return new CliError('store_unavailable', `cannot use the ${describeStore(config)}: ${messageOf(error)}`, {
    cause: error,
  });
}

function messageOf(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return messageOf(error.errors[0]);
  return error instanceof Error ? error.message : String(error);
}
