import type { Command } from 'commander';
import { type Environment, operations, withOperator } from '../operations.js';
import { printJson, printLines, renderTable, withOutputOptions } from '../output.js';

interface RequestsOptions {
  json?: boolean;
}

interface ListOptions extends RequestsOptions {
  status?: string;
}

interface SetOptions extends RequestsOptions {
  status: string;
  note?: string;
}

export function registerRequests(program: Command, env: Environment): void {
  const group = program
    .command('requests')
    .description('coverage requests from the public form: list them, and set what became of one');
  withOutputOptions(
    group
      .command('list')
      .description('coverage requests, newest first')
      .option('--status <status>', 'only the requests of one status: RECEIVED, IN_REVIEW, COVERED or DECLINED'),
  ).action(async (options: ListOptions) => {
    await listRequests(env, options);
  });
  withOutputOptions(
    group
      .command('set')
      .description(
        'set the status of a coverage request, which the requester reads at GET /api/public/score-request/{id}: ' +
          'IN_REVIEW, or the final COVERED or DECLINED (with a note)',
      )
      .argument('<request_id>', 'the request id (cr_...), as requests list prints it')
      .requiredOption('--status <status>', 'IN_REVIEW, COVERED or DECLINED')
      .option('--note <text>', 'a note to the requester (1 to 2000 characters); required for COVERED and DECLINED'),
  ).action(async (requestId: string, options: SetOptions) => {
    await setStatus(env, requestId, options);
  });
}

async function listRequests(env: Environment, options: ListOptions): Promise<void> {
  const ops = await operations(env);
  const status = options.status?.toUpperCase();
  const requests = await withOperator(ops, (ctx) => ops.api.listRequests(ctx, { status }));
  if (options.json) {
    printJson(requests.map(({ fingerprint: _fingerprint, ...request }) => request));
    return;
  }
  if (requests.length === 0) {
    printLines(status ? `no ${status} coverage requests` : 'no coverage requests');
    return;
  }
  printLines(
    renderTable(
      ['Request id', 'Provider', 'Website', 'Contact', 'Received', 'Status', 'Note'],
      requests.map((r) => [
        r.id,
        r.provider_name,
        r.website ?? '-',
        r.contact_email ?? '-',
        r.received_at,
        r.status,
        r.resolution ?? '-',
      ]),
    ),
  );
}

async function setStatus(env: Environment, requestId: string, options: SetOptions): Promise<void> {
  const ops = await operations(env);
  const updated = await withOperator(
    ops,
    (ctx) => ops.api.setRequestStatus(ctx, { requestId, status: options.status, note: options.note }),
    { changes: true },
  );
  if (options.json) {
    const { fingerprint: _fingerprint, ...request } = updated;
    printJson(request);
    return;
  }
  printLines(`coverage request ${updated.id} (${updated.provider_name}) is now ${updated.status}`);
}
