// A second process writing to the audit trail (test/store/audit.test.ts): `node --import tsx audit-writer.ts
// LOCATION_JSON NAME COUNT` from apps/api. It opens the store at LOCATION (a SQLite file or a PostgreSQL schema),
// prints "ready", waits for a line on stdin so two writers start together, then records COUNT issuances one after
// the other as the system named NAME: each an audited verb in its own transaction, between "started MS" and
// "finished MS" lines (Unix milliseconds). Exit 0 when all were written.

import { createInterface } from 'node:readline';
import { addIssuance } from '../../src/services/issuances/issuances.js';
import { standaloneContext } from '../../src/services/services.js';
import { openStore, type StoreLocation } from '../../src/store/store.js';
import { ISSUANCE } from './documents.js';

const [locationJson, name, countText] = process.argv.slice(2);
if (!locationJson || !name || !countText) {
  process.stderr.write('usage: audit-writer.ts LOCATION_JSON NAME COUNT\n');
  process.exit(2);
}
const store = openStore(JSON.parse(locationJson) as StoreLocation);
const ctx = standaloneContext(store, { actor: { kind: 'system', name } });
await store.ping();
process.stdout.write('ready\n');
await new Promise<void>((resolve) => createInterface({ input: process.stdin }).once('line', () => resolve()));
try {
  process.stdout.write(`started ${Date.now()}\n`);
  for (let i = 0; i < Number(countText); i++) {
    await addIssuance(ctx, { ...ISSUANCE, instrument_name: `${name} note ${i}` });
  }
  process.stdout.write(`finished ${Date.now()}\n`);
} finally {
  await store.close();
}
