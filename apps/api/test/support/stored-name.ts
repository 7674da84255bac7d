import { expect } from 'vitest';
import type { TestServer } from './server.js';

/** The characters no text output may pass on: C0 and C1 controls (but tab and line ends) and bidi overrides. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what must not be passed on
export const RAW_CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/**
 * Gives a published provider `name` as a store written before free text refused control characters may hold it: in
 * its provider row and in its stored indicator (whose name was the worked example's). Returns the indicator's id.
 */
export async function storeNameAsWritten(s: TestServer, providerId: string, name: string): Promise<string> {
  const db = s.services.store.db;
  await db.updateTable('providers').set({ name }).where('id', '=', providerId).execute();
  const row = await db
    .selectFrom('risk_indicators')
    .select(['risk_indicator_id', 'indicator'])
    .where('provider_id', '=', providerId)
    .executeTakeFirstOrThrow();
  const indicator = row.indicator.replaceAll('Example Sats Lending', JSON.stringify(name).slice(1, -1));
  expect(JSON.parse(indicator).name).toBe(name);
  await db
    .updateTable('risk_indicators')
    .set({ indicator })
    .where('risk_indicator_id', '=', row.risk_indicator_id)
    .execute();
  return row.risk_indicator_id;
}
