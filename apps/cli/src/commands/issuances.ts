import type { IssuanceChanges, IssuanceFields } from '@svc/api';
import type { Command } from 'commander';
import { type Environment, operations, withOperator } from '../operations.js';
import { printJson, printLines, renderTable, withOutputOptions } from '../output.js';

interface IssuanceOptions {
  json?: boolean;
  issuer?: string;
  instrument?: string;
  type?: string;
  status?: string;
  currency?: string;
  targetAmount?: string;
  provider?: string;
  ticker?: string;
  couponRate?: string;
  couponFrequency?: string;
  expectedPricingDate?: string;
  includeClosed?: boolean;
}

type Row = Awaited<ReturnType<typeof import('@svc/api')['addIssuance']>>;

/** The optional fields, shared by add and update. */
function withFieldOptions(command: Command): Command {
  return command
    .option('--provider <id>', 'the scored provider behind the issuer (a UUID), if there is one')
    .option('--ticker <ticker>', 'the exchange ticker')
    .option('--coupon-rate <pct>', 'the coupon or dividend rate in percent, e.g. 7.5')
    .option('--coupon-frequency <frequency>', 'monthly, quarterly, semiannual or annual')
    .option('--expected-pricing-date <YYYY-MM-DD>', 'when pricing is expected');
}

export function registerIssuances(program: Command, env: Environment): void {
  const group = program
    .command('issuances')
    .description('the issuance calendar: add, update, close and list issuances (printed as the API serves them)');
  withOutputOptions(
    withFieldOptions(
      group
        .command('add')
        .description('record an announced issuance')
        .requiredOption('--issuer <name>', 'the issuer')
        .requiredOption('--instrument <name>', 'the instrument, e.g. "8.00% Series A Preferred"')
        .requiredOption('--type <type>', 'preferred_share or bond')
        .requiredOption('--status <status>', 'ANNOUNCED or PRICING')
        .requiredOption('--currency <code>', 'ISO 4217 currency code, e.g. USD')
        .requiredOption('--target-amount <amount>', 'the amount sought, a positive decimal, kept exactly'),
    ),
  ).action(async (options: IssuanceOptions) => {
    await addIssuance(env, options);
  });
  withOutputOptions(
    withFieldOptions(
      group
        .command('update')
        .description('change the given fields of an issuance; the others keep their values')
        .argument('<issuance_id>', 'the issuance id (iss_...), as issuances list prints it')
        .option('--issuer <name>', 'the issuer')
        .option('--instrument <name>', 'the instrument')
        .option('--type <type>', 'preferred_share or bond')
        .option('--status <status>', 'ANNOUNCED or PRICING')
        .option('--currency <code>', 'ISO 4217 currency code')
        .option('--target-amount <amount>', 'the amount sought, a positive decimal'),
    ),
  ).action(async (id: string, options: IssuanceOptions) => {
    await updateIssuance(env, id, options);
  });
  withOutputOptions(
    group
      .command('close')
      .description(
        'close an issuance: it leaves the upcoming list (GET /api/v1/issuances shows it with include_closed=true)',
      )
      .argument('<issuance_id>', 'the issuance id (iss_...), as issuances list prints it')
      .requiredOption('--status <status>', 'PRICED (it was issued) or CANCELLED'),
  ).action(async (id: string, options: IssuanceOptions) => {
    await closeIssuance(env, id, options);
  });
  withOutputOptions(
    group
      .command('list')
      .description('upcoming issuances (ANNOUNCED, PRICING), newest announced first')
      .option('--status <status>', 'only the issuances of one status: ANNOUNCED, PRICING, PRICED or CANCELLED')
      .option('--type <type>', 'only preferred_share or only bond issuances')
      .option('--include-closed', 'also the closed ones (PRICED, CANCELLED)'),
  ).action(async (options: IssuanceOptions) => {
    await listIssuances(env, options);
  });
}

/** The options as the service's fields; status and currency are read in capitals. */
function changesOf(options: IssuanceOptions): IssuanceChanges {
  return {
    issuer_name: options.issuer,
    instrument_name: options.instrument,
    type: options.type,
    status: options.status?.toUpperCase(),
    currency: options.currency?.toUpperCase(),
    target_amount: options.targetAmount,
    provider_id: options.provider,
    ticker: options.ticker,
    coupon_rate_pct: options.couponRate,
    coupon_frequency: options.couponFrequency,
    expected_pricing_date: options.expectedPricingDate,
  };
}

async function addIssuance(env: Environment, options: IssuanceOptions): Promise<void> {
  const ops = await operations(env);
  // The required options are all present: commander refuses the command line otherwise.
  const fields = changesOf(options) as IssuanceFields;
  const row = await withOperator(ops, (ctx) => ops.api.addIssuance(ctx, fields), { changes: true });
  if (options.json) printJson(row);
  else printLines(`issuance ${row.id} added: ${row.issuer_name}, ${row.instrument_name} (${row.status})`);
}

async function updateIssuance(env: Environment, id: string, options: IssuanceOptions): Promise<void> {
  const ops = await operations(env);
  const row = await withOperator(ops, (ctx) => ops.api.updateIssuance(ctx, { id, changes: changesOf(options) }), {
    changes: true,
  });
  if (options.json) printJson(row);
  else printLines(`issuance ${row.id} updated: ${row.issuer_name}, ${row.instrument_name} (${row.status})`);
}

async function closeIssuance(env: Environment, id: string, options: IssuanceOptions): Promise<void> {
  const ops = await operations(env);
  const row = await withOperator(ops, (ctx) => ops.api.closeIssuance(ctx, { id, status: options.status ?? '' }), {
    changes: true,
  });
  if (options.json) printJson(row);
  else printLines(`issuance ${row.id} closed: ${row.issuer_name}, ${row.instrument_name} (${row.status})`);
}

async function listIssuances(env: Environment, options: IssuanceOptions): Promise<void> {
  const ops = await operations(env);
  const filter = {
    status: options.status?.toUpperCase(),
    type: options.type,
    includeClosed: options.includeClosed === true,
  };
  const rows = await withOperator(ops, (ctx) => ops.api.listIssuanceRecords(ctx, filter));
  if (options.json) {
    printJson(rows);
    return;
  }
  if (rows.length === 0) {
    printLines('no issuances');
    return;
  }
  printLines(
    renderTable(['Issuance id', 'Issuer', 'Instrument', 'Type', 'Status', 'Amount', 'Pricing'], rows.map(cells)),
  );
}

function cells(r: Row): string[] {
  return [
    r.id,
    r.issuer_name,
    r.instrument_name,
    r.type,
    r.status,
    `${r.target_amount} ${r.currency}`,
    r.expected_pricing_date ?? '-',
  ];
}
