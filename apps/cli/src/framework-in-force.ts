import { existsSync } from 'node:fs';
import type { Framework } from '@svc/methodology';
import { CliError } from './errors.js';
import { writeErr } from './io.js';
import { type Environment, type Operations, operations, withOperator } from './operations.js';

/** The framework a document is scored under, from its evaluation date (YYYY-MM-DD; undefined: it has none). */
export type FrameworkFor = (evaluationDate: string | undefined) => Promise<Framework>;

/** Every document under the one framework named (`--framework`, or a version compared by `methodology diff`). */
export const always =
  (framework: Framework): FrameworkFor =>
  async () =>
    framework;

/**
 * Runs `work` with the framework in force on each document's evaluation date, as the API's frameworkInForce answers
 * it (decision 0022) among the frameworks this command knows: the engine's built-in ones, and the releases recorded
 * in the configured store when there is one (DATABASE_URL, or the SQLite file under SVC_DATA_DIR). With no store
 * yet nothing is recorded, none is made, and the command stays offline. A configuration that cannot be read names
 * no store: scoring goes on offline, with a warning. A configured store that cannot be read stops the command
 * (exit 2), saying how to score without it.
 */
export async function withFrameworkInForce<T>(
  env: Environment,
  work: (frameworkFor: FrameworkFor) => Promise<T>,
): Promise<T> {
  const api = await import('@svc/api');
  const offline = { store: null, clock: api.systemClock };
  const withoutStore = () => work((on) => api.frameworkInForce(offline, dated(on)));
  let ops: Operations;
  try {
    ops = await operations(env);
  } catch (error) {
    if (!(error instanceof CliError) || error.code !== 'invalid_config') throw error;
    writeErr(`warning: ${error.message}: no store is read for the framework in force (name one with --framework)\n`);
    return withoutStore();
  }
  const { config } = ops;
  if (config.store.kind === 'sqlite' && !existsSync(config.store.file)) return withoutStore();
  try {
    return await withOperator(ops, (ctx) => work((on) => api.frameworkInForce(ctx, dated(on))));
  } catch (error) {
    if (!(error instanceof CliError) || error.code !== 'store_unavailable') throw error;
    throw new CliError(
      error.code,
      `${error.message}; the framework in force is read from it (name one with --framework to score without it)`,
      { cause: error },
    );
  }
}

/** In force on that date; a document without one is validated under the framework in force today (and refused). */
const dated = (on: string | undefined) => (on === undefined ? {} : { on });
