import type { RatingActionRecord, ServiceContext } from '@svc/api';
import type { RatingAction } from '@svc/contracts';
import type { Command } from 'commander';
import { type Api, type Environment, operations, withOperator } from '../operations.js';
import { printJson, printLines, renderTable, withOutputOptions } from '../output.js';
import { providerIdArgument } from '../provider-id.js';

/**
 * The risk team's rating actions (decision 0030): an analyst proposes a watch, its removal or an outlook; another
 * person with the approver role approves, and only then is the action effective, public, signed and sent.
 * `svc watchlist` (watchlist.ts) reports the ratings that need a look.
 */

interface JsonOption {
  json?: boolean;
}

interface ByOptions extends JsonOption {
  by?: string;
}

interface ProposalOptions extends ByOptions {
  rationale: string;
}

interface WatchOptions extends ProposalOptions {
  direction: string;
  reviewBy?: string;
}

interface ListOptions extends JsonOption {
  pending?: boolean;
  provider?: string;
}

const BY_ANALYST = '--by <name>';
const BY_ANALYST_HELP =
  'the analyst proposing it, in open mode (a store without operators; otherwise SVC_OPERATOR_TOKEN)';
const RATIONALE_HELP = 'why, for the record (1 to 2000 characters; line breaks allowed)';

export function registerRatingActions(program: Command, env: Environment): void {
  const watch = program
    .command('watch')
    .description(
      'propose placing or removing a watch on a rating in force (another person approves: svc actions approve)',
    );
  withOutputOptions(
    watch
      .command('place')
      .description(
        'propose a watch on a provider with an indicator in force; it takes effect when another person with the approver role approves it',
      )
      .argument('<provider_id>', 'the provider (its UUID, as provider list prints it)', providerIdArgument)
      .requiredOption('--direction <direction>', 'which way the rating may move: POSITIVE, NEGATIVE or DEVELOPING')
      .requiredOption('--rationale <text>', RATIONALE_HELP)
      .option(
        '--review-by <YYYY-MM-DD>',
        'when the watch is to be resolved: a date after today, at most 365 days ahead (default: 90 days after approval)',
      )
      .option(BY_ANALYST, BY_ANALYST_HELP),
  ).action(async (providerId: string, options: WatchOptions) => {
    await propose(env, options, (api, ctx) =>
      api.proposeWatch(ctx, {
        providerId,
        direction: options.direction,
        reviewBy: options.reviewBy,
        rationale: options.rationale,
      }),
    );
  });
  withOutputOptions(
    watch
      .command('remove')
      .description("propose ending a provider's watch; it ends when another person with the approver role approves")
      .argument('<provider_id>', 'the provider on watch', providerIdArgument)
      .requiredOption('--rationale <text>', RATIONALE_HELP)
      .option(BY_ANALYST, BY_ANALYST_HELP),
  ).action(async (providerId: string, options: ProposalOptions) => {
    await propose(env, options, (api, ctx) =>
      api.proposeWatchRemoval(ctx, { providerId, rationale: options.rationale }),
    );
  });

  const outlook = program.command('outlook').description("propose a provider's outlook (another person approves)");
  withOutputOptions(
    outlook
      .command('set')
      .description(
        'propose a new outlook for a provider with an indicator in force; it takes effect when another person with the approver role approves it',
      )
      .argument('<provider_id>', 'the provider', providerIdArgument)
      .argument('<outlook>', 'POSITIVE, STABLE, NEGATIVE or DEVELOPING')
      .requiredOption('--rationale <text>', RATIONALE_HELP)
      .option(BY_ANALYST, BY_ANALYST_HELP),
  ).action(async (providerId: string, value: string, options: ProposalOptions) => {
    await propose(env, options, (api, ctx) =>
      api.proposeOutlook(ctx, { providerId, outlook: value, rationale: options.rationale }),
    );
  });

  const actions = program
    .command('actions')
    .description('rating actions: list them (pending proposals and the record), approve proposals');
  withOutputOptions(
    actions
      .command('list')
      .description(
        'pending proposals (oldest first), then the latest effective actions (newest first): id, provider, type, status, proposed by/at, approved by, effective at',
      )
      .option('--pending', 'only the proposals waiting for approval')
      .option('--provider <provider_id>', "only this provider's actions", providerIdArgument),
  ).action(async (options: ListOptions) => {
    await listActions(env, options);
  });
  withOutputOptions(
    actions
      .command('approve')
      .description(
        'approve pending proposals (all or none): each takes effect, is numbered, signed and sent; the approver must not be the proposer',
      )
      .argument('<id...>', 'the rating action ids (ra_...), as actions list --pending prints them')
      .option('--by <name>', 'the approver, in open mode (a store without operators; otherwise SVC_OPERATOR_TOKEN)'),
  ).action(async (ids: string[], options: ByOptions) => {
    await approve(env, ids, options);
  });
}

/** Records one proposal as the analyst running the command, and says it awaits approval. */
async function propose(
  env: Environment,
  options: ByOptions,
  verb: (api: Api, ctx: ServiceContext) => Promise<RatingActionRecord>,
): Promise<void> {
  const ops = await operations(env);
  const record = await withOperator(ops, (ctx) => verb(ops.api, ctx), { by: options.by, changes: true });
  if (options.json) {
    printJson(record);
    return;
  }
  printLines(
    `${record.id}: ${what(record)} for ${record.provider_name} (${record.provider_id}), proposed by ${record.proposed_by}, awaits approval`,
    `Approve with: svc actions approve ${record.id} (by another operator, with the approver role)`,
  );
}

async function listActions(env: Environment, options: ListOptions): Promise<void> {
  const ops = await operations(env);
  const provider = options.provider?.trim().toLowerCase();
  const records = (
    await withOperator(ops, (ctx) => ops.api.listRatingActions(ctx, { pendingOnly: options.pending === true }))
  ).filter((r) => provider === undefined || r.provider_id === provider);
  if (options.json) {
    printJson(records);
    return;
  }
  if (records.length === 0) {
    const about = provider === undefined ? '' : ` for provider ${provider}`;
    printLines(options.pending ? `no rating actions are pending approval${about}` : `no rating actions yet${about}`);
    return;
  }
  printLines(actionsTable(records));
}

async function approve(env: Environment, ids: readonly string[], options: ByOptions): Promise<void> {
  const ops = await operations(env);
  const approved = await withOperator(ops, (ctx) => ops.api.approveRatingActions(ctx, { ids }), {
    by: options.by,
    changes: true,
    signsAs: { role: 'approver', doing: 'approving rating actions' },
  });
  if (options.json) {
    printJson(approved);
    return;
  }
  printLines(
    `${approved.length} rating ${approved.length === 1 ? 'action' : 'actions'} approved by ${approved[0]?.approved_by ?? options.by}, effective, signed and sent:`,
    renderTable(
      ['Id', 'Provider', 'Type', 'Outlook', 'Watch', 'Effective at'],
      approved.map((a) => [a.id, a.provider_name, a.type, a.outlook, watchText(a.watch), a.effective_at]),
    ),
  );
}

function actionsTable(records: readonly RatingActionRecord[]): string {
  return renderTable(
    ['Id', 'Provider', 'Type', 'Status', 'Proposed by', 'Proposed at', 'Approved by', 'Effective at'],
    records.map((r) => [
      r.id,
      [r.provider_name, r.provider_id],
      what(r),
      r.status,
      r.proposed_by ?? '-',
      r.proposed_at ?? '-',
      r.approved_by ?? '-',
      r.effective_at ?? '-',
    ]),
  );
}

/** The type, with what was proposed or what it did: "WATCH_PLACED NEGATIVE (review by 2027-01-31)". */
function what(r: RatingActionRecord): string {
  const p = r.proposal;
  if (r.type === 'WATCH_PLACED') {
    const review = r.action?.watch?.review_by ?? p?.review_by ?? null;
    const direction = r.action?.watch?.direction ?? p?.direction ?? '';
    return `WATCH_PLACED ${direction} (review by ${review ?? '90 days after approval'})`;
  }
  if (r.type === 'OUTLOOK_CHANGED') return `OUTLOOK_CHANGED to ${r.action?.outlook ?? p?.outlook ?? ''}`;
  const a = r.action;
  if (a && r.type !== 'WATCH_REMOVED') {
    if (a.previous_band === null) return `${r.type} ${a.new_band ?? ''}`.trim();
    if (a.new_band === null) return `${r.type} (was ${a.previous_band})`;
    return `${r.type} ${a.previous_band} -> ${a.new_band}`;
  }
  return r.type;
}

function watchText(watch: RatingAction['watch']): string {
  return watch === null ? 'none' : `${watch.direction} (review by ${watch.review_by})`;
}
