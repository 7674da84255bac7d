import type { AuditEntry } from '@svc/api';
import type { Command } from 'commander';
import { CliError } from '../errors.js';
import { setExitCode, writeErr } from '../io.js';
import { type Environment, operations, withOperator } from '../operations.js';
import { printJson, printLines, renderTable, withOutputOptions } from '../output.js';

interface AuditOptions {
  json?: boolean;
}

interface VerifyOptions extends AuditOptions {
  statements?: boolean;
}

interface ListOptions extends AuditOptions {
  since?: string;
  actor?: string;
  action?: string;
  limit?: string;
  after?: string;
}

export function registerAudit(program: Command, env: Environment): void {
  const group = program
    .command('audit')
    .description('the audit trail: every change to the record, who made it and when, in a hash chain');
  withOutputOptions(
    group
      .command('list')
      .description('entries in order: seq, when, who, action, subject, details')
      .option('--since <date>', 'from this date (YYYY-MM-DD) or instant (ISO 8601) on')
      .option('--actor <name>', "an operator's or key's name or id")
      .option('--action <action>', 'one action (inputs.approved) or a family ending in a dot (inputs.)')
      .option('--limit <n>', 'at most this many entries (1 to 10000)', '1000')
      .option('--after <seq>', 'only entries after this seq (the next page: the last seq of the previous one)'),
  ).action(async (options: ListOptions) => {
    const ops = await operations(env);
    const limit = Number(options.limit);
    if (!/^\d+$/.test(options.limit ?? '') || limit < 1 || limit > ops.api.MAX_AUDIT_PAGE) {
      throw new CliError('usage', `--limit must be a whole number from 1 to ${ops.api.MAX_AUDIT_PAGE}`);
    }
    const afterSeq = options.after === undefined ? undefined : Number(options.after);
    if (afterSeq !== undefined && (!/^\d+$/.test(options.after ?? '') || !Number.isSafeInteger(afterSeq))) {
      throw new CliError('usage', `--after must be an entry's seq (a whole number), not "${options.after}"`);
    }
    const entries = await withOperator(ops, (ctx) =>
      ops.api.listAudit(ctx, { since: options.since, actor: options.actor, action: options.action, limit, afterSeq }),
    );
    if (options.json) {
      printJson(entries);
      return;
    }
    if (entries.length === 0) {
      printLines('no entries match');
      return;
    }
    printLines(
      renderTable(
        ['Seq', 'At', 'Actor', 'Action', 'Subject', 'Details'],
        entries.map((e) => [
          String(e.seq),
          e.at,
          actorOf(e),
          e.action,
          `${e.subject.type} ${e.subject.id}`,
          shortened(JSON.stringify(e.details)),
        ]),
      ),
    );
  });
  withOutputOptions(
    group
      .command('verify')
      .description(
        'recompute the chain from the first entry: exit 0 with the head hash when intact, 1 naming the first entry changed, removed or out of order',
      )
      .option(
        '--statements',
        "also check every signed statement (its signature, its provider's chain, the audit entry it names, the columns stored beside it) and that every publication, withdrawal and rating action, and every audit entry recording one, has its statement",
      ),
  ).action(async (options: VerifyOptions) => {
    const ops = await operations(env);
    const { result, statements } = await withOperator(ops, async (ctx) => ({
      result: await ops.api.verifyAudit(ctx),
      statements: options.statements ? await ops.api.verifyStatements(ctx) : undefined,
    }));
    const statementsHold = statements === undefined || statements.broken === null;
    if (options.json) printJson(statements === undefined ? result : { ...result, statements });
    else {
      if (result.intact) {
        printLines(
          `audit trail intact: ${result.entries} entries, head seq ${result.head.seq} hash ${result.head.hash}`,
        );
      } else {
        writeErr(`audit trail broken at seq ${result.broken_seq}: ${result.reason}\n`);
      }
      if (statements?.broken) {
        const b = statements.broken;
        const about = [b.provider_id && `provider ${b.provider_id}`, b.risk_indicator_id].filter(Boolean).join(', ');
        writeErr(
          b.statement_sha256 === null
            ? `statements incomplete${about ? ` (${about})` : ''}: ${b.reason}\n`
            : `statement ${b.statement_sha256} (${about}) does not hold: ${b.reason}\n`,
        );
      } else if (statements) {
        printLines(
          `statements: all ${statements.checked} verify, name entries of this trail, and state every publication, withdrawal and rating action`,
        );
      }
    }
    setExitCode(result.intact && statementsHold ? 0 : 1);
  });
}

/** Details as the table shows them: at most 100 characters (--json has them whole). */
function shortened(text: string): string {
  return text.length <= 100 ? text : `${text.slice(0, 99)}…`;
}

function actorOf(e: AuditEntry): string {
  const who = e.actor.name ?? e.actor.id ?? '(no name given)';
  return e.actor.type === 'operator' ? who : `${who} (${e.actor.type === 'api_key' ? `key ${e.actor.id}` : 'system'})`;
}
