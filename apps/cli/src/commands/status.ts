import type { Command } from 'commander';
import { describeStore, type Environment, operations, warnOpenMode, withOperator } from '../operations.js';
import { printJson, printLines, withOutputOptions } from '../output.js';

interface StatusOptions {
  json?: boolean;
}

export function registerStatus(program: Command, env: Environment): void {
  withOutputOptions(
    program
      .command('status')
      .description(
        'the store at a glance: where it is, the framework in force, providers published, submissions pending, operators (or open mode) and the head of the audit trail',
      ),
  ).action(async (options: StatusOptions) => {
    const ops = await operations(env);
    const { api } = ops;
    const status = await withOperator(ops, async (ctx) => {
      const [framework, providers, pending, operators, head, keys] = await Promise.all([
        api.frameworkInForce(ctx, { fresh: true }),
        api.listProviders(ctx),
        api.listInputs(ctx, { pendingOnly: true }),
        api.listOperators(ctx),
        api.auditHead(ctx),
        api.listSigningKeys(ctx),
      ]);
      const active = operators.filter((o) => o.status === 'active');
      return {
        store: ops.config.store.kind,
        framework_version: framework.definition.framework_version,
        providers: providers.length,
        providers_published: providers.filter((p) => p.final_score !== null).length,
        providers_withdrawn: providers.filter((p) => p.withdrawn).length,
        submissions_pending: pending.length,
        mode: operators.length === 0 ? ('open' as const) : ('operators' as const),
        operators: active.length,
        administrators: active.filter((o) => o.roles.includes('admin')).length,
        audit_head: head,
        signing_key: keys.find((k) => k.status === 'active')?.kid ?? null,
      };
    });
    if (status.mode === 'open') warnOpenMode(ops);
    if (options.json) {
      printJson(status);
      return;
    }
    printLines(
      `${describeStore(ops.config)}`,
      `framework in force: ${status.framework_version}`,
      `providers: ${status.providers} (${status.providers_published} published, ${status.providers_withdrawn} withdrawn)`,
      `submissions pending approval: ${status.submissions_pending}`,
      status.mode === 'open'
        ? 'operators: none (open mode: names given with --by are taken at their word)'
        : `operators: ${status.operators} active, ${status.administrators} with the admin role (SVC_OPERATOR_TOKEN)`,
      status.audit_head
        ? `audit trail: head seq ${status.audit_head.seq} hash ${status.audit_head.hash} (check it with svc audit verify)`
        : 'audit trail: none',
      status.signing_key
        ? `signing key: ${status.signing_key} (svc signing-key list)`
        : 'signing key: none yet (the first publication makes one)',
    );
  });
}
