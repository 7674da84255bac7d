import type { IssuedOperator, OperatorSummary } from '@svc/api';
import type { Command } from 'commander';
import { type Environment, operations, withOperator } from '../operations.js';
import { printJson, printLines, renderTable, withOutputOptions } from '../output.js';

interface OperatorOptions {
  json?: boolean;
}

interface AddOptions extends OperatorOptions {
  role: string[];
}

export function registerOperator(program: Command, env: Environment): void {
  const group = program
    .command('operator')
    .description(
      'the people of the risk team who change the record, each with roles (analyst, approver, chief_risk_officer, admin) and a token (SVC_OPERATOR_TOKEN)',
    );
  withOutputOptions(
    group
      .command('add')
      .description(
        'add an operator and print their token, once (only its SHA-256 is kept); the first operator of a store needs no token and must be an admin, later ones are added by an admin',
      )
      .argument('<name>', 'the person, 1 to 100 characters, unique in the store')
      .requiredOption(
        '--role <roles>',
        'analyst (imports inputs), approver (approves and publishes), chief_risk_officer (signs off frameworks), admin (workspaces, keys, operators); several comma-separated',
        (value: string, previous: string[] = []) => [...previous, value],
      ),
  ).action(async (name: string, options: AddOptions) => {
    const ops = await operations(env);
    const added = await withOperator(ops, (ctx) => ops.api.addOperator(ctx, { name, roles: options.role }), {
      changes: true,
      endsOpenMode: true,
    });
    printIssued(added, options, 'added');
  });
  withOutputOptions(
    group.command('list').description('every operator, oldest first: name, roles, status, when the token was issued'),
  ).action(async (options: OperatorOptions) => {
    const ops = await operations(env);
    const operators = await withOperator(ops, (ctx) => ops.api.listOperators(ctx));
    if (options.json) {
      printJson(operators);
      return;
    }
    if (operators.length === 0) {
      printLines(
        'no operators: the store is in open mode (names given with --by); add the first with svc operator add NAME --role admin',
      );
      return;
    }
    printLines(renderTable(['Operator id', 'Name', 'Roles', 'Status', 'Created', 'Token issued'], operators.map(row)));
  });
  withOutputOptions(
    group
      .command('revoke')
      .description("revoke an operator's token for good (an admin's act; the last active admin cannot be revoked)")
      .argument('<name>', 'the operator'),
  ).action(async (name: string, options: OperatorOptions) => {
    const ops = await operations(env);
    const revoked = await withOperator(ops, (ctx) => ops.api.revokeOperator(ctx, { name }), { changes: true });
    if (options.json) printJson(revoked);
    else printLines(`operator ${revoked.name} revoked at ${revoked.revoked_at}: their token no longer works`);
  });
  withOutputOptions(
    group
      .command('rotate-token')
      .description(
        "issue a new token to an operator, printed once; the old one stops working at once (an admin's act, or the operator's own)",
      )
      .argument('<name>', 'the operator'),
  ).action(async (name: string, options: OperatorOptions) => {
    const ops = await operations(env);
    const rotated = await withOperator(ops, (ctx) => ops.api.rotateOperatorToken(ctx, { name }), { changes: true });
    printIssued(rotated, options, 'has a new token');
  });
}

function printIssued(operator: IssuedOperator, options: OperatorOptions, what: string): void {
  if (options.json) {
    printJson(operator);
    return;
  }
  printLines(
    `operator ${operator.name} ${what} (${operator.operator_id}), roles: ${operator.roles.join(', ')}`,
    `token (shown once, keep it secret): ${operator.token}`,
    `act as ${operator.name} with: export SVC_OPERATOR_TOKEN=${operator.token}`,
  );
}

function row(o: OperatorSummary): string[] {
  return [
    o.operator_id,
    o.name,
    o.roles.join(','),
    o.status === 'revoked' ? `revoked ${o.revoked_at}` : 'active',
    o.created_at,
    o.token_issued_at,
  ];
}
