import type { Command } from 'commander';
import type { SeedReport } from '../demo/seed.js';
import { writeErr } from '../io.js';
import {
  describeStore,
  type Environment,
  masterSecretBox,
  operations,
  withMigratedStore,
  withOperator,
  withStore,
} from '../operations.js';
import { printJson, printLines, renderTable, withOutputOptions } from '../output.js';

interface DbOptions {
  json?: boolean;
}

interface SeedOptions extends DbOptions {
  ifEmpty?: boolean;
  by?: string;
}

export function registerDb(program: Command, env: Environment): void {
  const group = program
    .command('db')
    .description('the store (SQLite under SVC_DATA_DIR, or PostgreSQL at DATABASE_URL): migrate it, seed it');
  withOutputOptions(
    group.command('migrate').description('bring the store schema up to date (safe to run again)'),
  ).action(async (options: DbOptions) => {
    await migrateStore(env, options);
  });
  withOutputOptions(
    group
      .command('seed')
      .description('load a data set into the store (migrating it first); running it again changes nothing')
      .requiredOption('--demo', 'the fictional demo data set: providers, two scoring rounds, issuances')
      .option(
        '--if-empty',
        'only into a store that holds no provider yet: one that holds data already (the demo, or your own) is left as it is, with no operator token needed (what pnpm main runs)',
      )
      .option('--by <name>', 'who loads it, in open mode (a store without operators; otherwise SVC_OPERATOR_TOKEN)'),
  ).action(async (options: SeedOptions) => {
    await seedStore(env, options);
  });
}

async function migrateStore(env: Environment, options: DbOptions): Promise<void> {
  const ops = await operations(env);
  const { applied, past } = await withStore(ops, async (store) => {
    const applied = await ops.api.migrate(store);
    // What was recorded before statements (decision 0026) or rating actions (decision 0030) existed is signed now, once.
    const past = await ops.api.signPastPublications(store, {
      configured: ops.config.signingKey,
      box: () => masterSecretBox(ops),
    });
    return { applied, past };
  });
  const where = describeStore(ops.config);
  const statements = 'error' in past ? { error: past.error } : { signed: past.signed, kid: past.kid };
  if (options.json) {
    printJson({ store: ops.config.store.kind, applied, up_to_date: applied.length === 0, statements });
    return;
  }
  if (applied.length === 0) printLines(`${where}: up to date, no migrations to apply`);
  else printLines(`${where}: applied ${applied.length} ${plural(applied.length, 'migration')}`, ...applied);
  if ('error' in past) {
    writeErr(`warning: the statements of earlier publications are not signed yet: ${past.error}\n`);
  } else if (past.signed > 0) {
    printLines(
      `signed the statements of ${past.signed} earlier publications, withdrawals and rating actions with key ${past.kid}`,
    );
  }
}

async function seedStore(env: Environment, options: SeedOptions): Promise<void> {
  const ops = await operations(env);
  if (options.ifEmpty) {
    const providers = await withMigratedStore(ops, (store) => ops.api.countProviders(store));
    if (providers > 0) {
      const where = describeStore(ops.config);
      if (options.json) printJson({ store: ops.config.store.kind, changed: false, skipped: 'not_empty', providers });
      else
        printLines(
          `${where}: holds ${providers} ${plural(providers, 'provider')} already; the demo data set is not loaded over them (--if-empty)`,
        );
      return;
    }
  }
  // The demo module imports the API; loaded here so other commands do not pay for it.
  const { seedDemo } = await import('../demo/seed.js');
  // The demo publishes and records: on a store with operators, an administrator's act, run in their context, which
  // the trail records (in open mode, the name given with --by; without one, the seed itself).
  const report = await withOperator(ops, (ctx) => seedDemo(ctx), {
    by: options.by,
    changes: true,
    signsAs: { role: 'admin', doing: 'loading the demo data set' },
  });
  if (options.json) printJson({ store: ops.config.store.kind, ...report });
  else printLines(headline(describeStore(ops.config), report), providersTable(report));
}

function headline(where: string, r: SeedReport): string {
  const size = `${r.providers.length} providers, ${r.issuances.inserted + r.issuances.updated + r.issuances.unchanged} issuances`;
  if (!r.changed)
    return `${where}: nothing changed, the demo data set (${r.framework_version}, ${size}) is already in place`;
  const changes = Object.entries(r.changes)
    .filter(([, n]) => n > 0)
    .map(([type, n]) => `${n} ${type}`)
    .join(', ');
  const { inserted, updated } = r.issuances;
  const { approved, withdrawn } = r.rating_actions;
  return [
    `${where}: loaded the demo data set (${r.framework_version}, ${size}):`,
    `${r.published} ${plural(r.published, 'indicator')} published (change feed: ${changes || 'none'}),`,
    `${approved} analyst ${plural(approved, 'action')} approved, ${withdrawn} ${plural(withdrawn, 'withdrawal')},`,
    `${inserted} ${plural(inserted, 'issuance')} added, ${updated} updated`,
  ].join(' ');
}

function providersTable(r: SeedReport): string {
  return renderTable(
    ['Provider', 'Type', 'Subtype', 'Score', 'Band', 'Hard caps', 'Published now'],
    r.providers.map((p) => [
      p.name,
      p.planner_type,
      p.provider_subtype,
      p.final_score.toFixed(2),
      p.risk_band,
      p.hard_caps_fired.join(', ') || 'none',
      String(p.published),
    ]),
  );
}

function plural(n: number, word: string): string {
  return n === 1 ? word : `${word}s`;
}
