import { canonicalJson, readJson, sha256Hex } from '@svc/methodology';
import type { Kysely } from 'kysely';
import { auditHashesAt, listAuditRows } from '../../store/repositories/audit.js';
import { readMeta } from '../../store/repositories/meta.js';
import { listSigningKeys, type StatementRow, statementsAfter } from '../../store/repositories/statements.js';
import type { Database, SigningKeysTable } from '../../store/schema.js';
import type { ServiceContext } from '../context.js';
import { signatureVerifies } from '../shared/signing.js';
import type { Statement } from './statements.js';

export interface StatementsVerification {
  /** How many statements were checked. */
  checked: number;
  /**
   * The first fault, in the order signed; then the first record that should have a statement and has none (its
   * `statement_sha256` null). Null when every statement holds and every record has its statement.
   */
  broken: {
    statement_sha256: string | null;
    provider_id: string | null;
    risk_indicator_id: string | null;
    reason: string;
  } | null;
}

type Broken = NonNullable<StatementsVerification['broken']>;

/** How many rows are read at a time: memory holds one page and one short line per statement. */
const PAGE = 2000;

/** What each statement signed, by the record it states: read back against the records and the audit trail. */
interface Stated {
  /** By publication (indicator_history.seq): `risk_indicator_id provider_id published_at`. */
  publications: Map<number, string>;
  /** By the publication withdrawn: `risk_indicator_id provider_id withdrawn_at`. */
  withdrawals: Map<number, string>;
  /** By rating action id: `provider_id risk_indicator_id type effective_at`. */
  actions: Map<string, string>;
}

/**
 * `svc audit verify --statements`: every statement, in the order signed, holds (its hash is its text's, its signature
 * verifies under its key within the key's life, it names its provider's previous statement and an audit entry of
 * the trail, and the columns stored beside it say what its signed text says); then every record that must be stated
 * is: each publication, withdrawal and effective rating action, and each audit entry that records one, has exactly
 * the statement that states it. Deleting, duplicating or relabelling a statement is found.
 */
export async function verifyStatements(ctx: ServiceContext): Promise<StatementsVerification> {
  const { db } = ctx.store;
  const stated: Stated = { publications: new Map(), withdrawals: new Map(), actions: new Map() };
  const signed = await verifySigned(db, stated);
  if (signed.broken) return signed;
  const unstated = (await unstatedRecord(db, stated)) ?? (await unstatedAuditEntry(db, stated));
  return unstated ? { checked: signed.checked, broken: unstated } : signed;
}

async function verifySigned(db: Kysely<Database>, stated: Stated): Promise<StatementsVerification> {
  const keys = new Map((await listSigningKeys(db)).map((k) => [k.kid, k]));
  const lastOf = new Map<string, string>();
  let checked = 0;
  for (let after = 0; ; ) {
    const rows = await statementsAfter(db, after, PAGE);
    if (rows.length === 0) break;
    const parsed = rows.map((row) => ({ row, statement: readJson(row.statement) as Statement }));
    const hashes = await auditHashesAt(db, [...new Set(parsed.map((p) => Number(p.statement.audit_head?.seq)))]);
    for (const { row, statement } of parsed) {
      const reason =
        textFault(row, statement) ??
        signatureFault(row, statement, keys.get(row.kid)) ??
        columnFault(row, statement) ??
        chainFault(row, statement, lastOf, hashes) ??
        recordStated(row, statement, stated);
      if (reason !== null) return { checked, broken: { ...idsOf(row), reason } };
      lastOf.set(row.provider_id, row.statement_sha256);
      checked++;
    }
    after = rows[rows.length - 1]?.id ?? after;
    if (rows.length < PAGE) break;
  }
  return { checked, broken: null };
}

function idsOf(row: StatementRow): Omit<Broken, 'reason'> {
  return {
    statement_sha256: row.statement_sha256,
    provider_id: row.provider_id,
    risk_indicator_id: row.risk_indicator_id,
  };
}

function textFault(row: StatementRow, statement: Statement): string | null {
  if (sha256Hex(row.statement) !== row.statement_sha256 || canonicalJson(statement) !== row.statement) {
    return 'its text was changed after it was signed (its hash does not match)';
  }
  return null;
}

function signatureFault(row: StatementRow, statement: Statement, key: SigningKeysTable | undefined): string | null {
  if (!key) return `its key ${row.kid} is not among the signing keys`;
  if (!signatureVerifies(Buffer.from(row.statement, 'utf8'), row.signature, key.public_key)) {
    return `its signature does not verify under key ${row.kid}`;
  }
  if (statement.signed_at < key.not_before || (key.not_after !== null && statement.signed_at > key.not_after)) {
    return `it says it was signed at ${statement.signed_at}, outside the life of key ${row.kid}`;
  }
  return null;
}

/** The columns stored beside the signed text, which routes and pages look statements up by, must say what it says. */
function columnFault(row: StatementRow, statement: Statement): string | null {
  const actionId = statement.type === 'rating_action' ? statement.action.id : null;
  const pairs: [string, unknown, unknown][] = [
    ['type', row.type, statement.type],
    ['provider_id', row.provider_id, statement.provider_id],
    ['risk_indicator_id', row.risk_indicator_id, statement.risk_indicator_id],
    ['signed_at', row.signed_at, statement.signed_at],
    ['rating_action_id', row.rating_action_id ?? null, actionId],
  ];
  const wrong = pairs.find(([, column, text]) => column !== text);
  if (!wrong) return null;
  const [name, column, text] = wrong;
  return `its ${name} column says ${JSON.stringify(column)} where its signed text says ${JSON.stringify(text)}`;
}

function chainFault(
  row: StatementRow,
  statement: Statement,
  lastOf: Map<string, string>,
  hashes: Map<number, string>,
): string | null {
  if ((statement.prev_statement_sha256 ?? null) !== (lastOf.get(row.provider_id) ?? null)) {
    return `it does not name the previous statement of provider ${row.provider_id}`;
  }
  const head = statement.audit_head;
  if (hashes.get(Number(head?.seq)) !== head?.hash) {
    return `the audit entry it names (seq ${head?.seq}) is not in the trail with that hash`;
  }
  return null;
}

/** Records what the statement states under the record it states; a second statement of one record is a fault. */
function recordStated(row: StatementRow, statement: Statement, stated: Stated): string | null {
  const [map, key, what, line] =
    statement.type === 'publication'
      ? [stated.publications, row.publication_seq, `publication ${row.publication_seq}`, statement.published_at]
      : statement.type === 'withdrawal'
        ? [
            stated.withdrawals,
            row.publication_seq,
            `the withdrawal of publication ${row.publication_seq}`,
            statement.withdrawn_at,
          ]
        : [stated.actions, statement.action.id, `rating action ${statement.action.id}`, null];
  if ((map as Map<unknown, string>).has(key)) return `${what} is stated twice`;
  const fact =
    statement.type === 'rating_action'
      ? `${statement.provider_id} ${statement.risk_indicator_id} ${statement.action.type} ${statement.action.effective_at}`
      : `${statement.risk_indicator_id} ${statement.provider_id} ${line}`;
  (map as Map<unknown, string>).set(key, fact);
  return null;
}

/** The first publication, withdrawal or effective rating action without the statement that states it. */
async function unstatedRecord(db: Kysely<Database>, stated: Stated): Promise<Broken | null> {
  const publications = await db
    .selectFrom('indicator_history')
    .select(['seq', 'provider_id', 'risk_indicator_id', 'published_at'])
    .orderBy('seq')
    .execute();
  for (const h of publications) {
    const fault = factFault(stated.publications, h.seq, `${h.risk_indicator_id} ${h.provider_id} ${h.published_at}`);
    if (fault) {
      const { provider_id, risk_indicator_id } = h;
      return { statement_sha256: null, provider_id, risk_indicator_id, reason: `publication ${h.seq} ${fault}` };
    }
  }
  const withdrawals = await db
    .selectFrom('withdrawals')
    .select(['after_seq', 'provider_id', 'risk_indicator_id', 'withdrawn_at'])
    .orderBy('after_seq')
    .execute();
  for (const w of withdrawals) {
    const fault = factFault(
      stated.withdrawals,
      w.after_seq,
      `${w.risk_indicator_id} ${w.provider_id} ${w.withdrawn_at}`,
    );
    if (fault) {
      const { provider_id, risk_indicator_id } = w;
      return {
        statement_sha256: null,
        provider_id,
        risk_indicator_id,
        reason: `the withdrawal of publication ${w.after_seq} ${fault}`,
      };
    }
  }
  const actions = await effectiveActions(db);
  for (const a of actions) {
    const fault = factFault(
      stated.actions,
      a.id,
      `${a.provider_id} ${a.risk_indicator_id} ${a.type} ${a.effective_at}`,
    );
    if (fault) {
      const { provider_id, risk_indicator_id } = a;
      return { statement_sha256: null, provider_id, risk_indicator_id, reason: `rating action ${a.id} ${fault}` };
    }
  }
  const extra =
    stated.publications.size > publications.length
      ? 'a publication statement names a publication that is not in the history'
      : stated.withdrawals.size > withdrawals.length
        ? 'a withdrawal statement names a withdrawal that is not recorded'
        : stated.actions.size > actions.length
          ? 'a rating action statement names an action that is not recorded'
          : null;
  return extra ? { statement_sha256: null, provider_id: null, risk_indicator_id: null, reason: extra } : null;
}

/** The effective rating actions; none on a store migrated only up to 0011, which had no rating actions yet. */
async function effectiveActions(db: Kysely<Database>) {
  try {
    return await db
      .selectFrom('rating_actions')
      .select(['id', 'provider_id', 'type', 'seq', 'risk_indicator_id', 'effective_at'])
      .where('status', '=', 'EFFECTIVE')
      .orderBy('seq')
      .execute();
  } catch (error) {
    const missingTable = /no such table|does not exist/.test((error as Error).message);
    if (missingTable && (await readMeta(db, 'rating_action_seq')) === undefined) return [];
    throw error;
  }
}

function factFault<K>(stated: Map<K, string>, key: K, fact: string): string | null {
  const signed = stated.get(key);
  if (signed === undefined) return 'has no signed statement';
  return signed === fact ? null : `is not what its statement signed (${signed}, where the record says ${fact})`;
}

/** The audit actions that record a statement, and the record each names in its details or subject. */
const STATED_ACTIONS = ['indicator.published', 'provider.withdrawn', 'rating_action.approved'] as const;

/** The first audit entry recording a publication, withdrawal or approved action that no statement states. */
async function unstatedAuditEntry(db: Kysely<Database>, stated: Stated): Promise<Broken | null> {
  for (const action of STATED_ACTIONS) {
    for (let after = 0; ; ) {
      const rows = await listAuditRows(db, { action, afterSeq: after, limit: PAGE });
      for (const row of rows) {
        const details = JSON.parse(row.details) as { publication_seq?: unknown; provider_id?: unknown };
        const found =
          action === 'indicator.published'
            ? stated.publications.has(Number(details.publication_seq))
            : action === 'provider.withdrawn'
              ? stated.withdrawals.has(Number(details.publication_seq))
              : stated.actions.has(row.subject_id);
        if (!found) {
          const provider = typeof details.provider_id === 'string' ? details.provider_id : null;
          return {
            statement_sha256: null,
            provider_id: provider,
            risk_indicator_id: null,
            reason: `audit entry ${row.seq} (${action}) records what no statement states`,
          };
        }
      }
      if (rows.length < PAGE) break;
      after = Number(rows[rows.length - 1]?.seq);
    }
  }
  return null;
}
