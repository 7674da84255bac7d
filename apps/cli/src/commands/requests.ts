import type { Command } from 'commander';
import { type Environment, operations, withMigratedStore } from '../operations.js';
import { printJson, printLines, renderTable, withOutputOptions } from '../output.js';

interface RequestsOptions {
  json?: boolean;
}

interface ListOptions extends RequestsOptions {
  status?: string;
}

interface ResolveOptions extends RequestsOptions {
  resolution: string;
}

export function registerRequests(program: Command, env: Environment): void {
  const group = program.command('requests').description('coverage requests from the public form: list and resolve');
  withOutputOptions(
    group
      .command('list')
      .description('coverage requests, newest first')
      .option('--status <status>', 'only RECEIVED or only RESOLVED requests'),
  ).action(async (options: ListOptions) => {
    await listRequests(env, options);
  });
  withOutputOptions(
    group
      .command('resolve')
      .description('resolve a received coverage request with a note')
      .argument('<request_id>', 'the request id (cr_...), as requests list prints it')
      .requiredOption('--resolution <text>', 'what was decided (1 to 2000 characters)'),
  ).action(async (requestId: string, options: ResolveOptions) => {
    await resolve(env, requestId, options);
  });
}

async function listRequests(env: Environment, options: ListOptions): Promise<void> {
  const ops = await operations(env);
  const status = options.status?.toUpperCase();
  const requests = await withMigratedStore(ops, (store) => ops.api.listRequests(store, status));
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
      ['Request id', 'Provider', 'Website', 'Contact', 'Received', 'Status', 'Resolution'],
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

async function resolve(env: Environment, requestId: string, options: ResolveOptions): Promise<void> {
  const ops = await operations(env);
  const resolved = await withMigratedStore(ops, (store) =>
    ops.api.resolveRequest(store, ops.api.systemClock, requestId, options.resolution),
  );
  if (options.json) {
    const { fingerprint: _fingerprint, ...request } = resolved;
    printJson(request);
    return;
  }
  printLines(`coverage request ${resolved.id} (${resolved.provider_name}) resolved at ${resolved.resolved_at}`);
}
