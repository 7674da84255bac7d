import { readJson, sha256Hex } from '@svc/methodology';
import type { Kysely } from 'kysely';
import {
  findSigningKey,
  publicationStatementsOf,
  type StatementRow,
  statementsByHash,
} from '../../store/repositories/statements.js';
import type { Database } from '../../store/schema.js';
import type { ServiceContext } from '../context.js';
import { ServiceError } from '../errors.js';
import { signatureVerifies } from '../shared/signing.js';
import { signedOf } from './chain.js';
import type { SignedStatement, Statement } from './model.js';

/** Reading statements: by indicator (checked against its key), by what they sign. */

/** A publication's statement as the verification page shows it: checked here against the key that signed it. */
export interface CheckedStatement {
  signed: SignedStatement;
  /** Whether the signature verifies under the key named, as the store publishes it. */
  verifies: boolean;
  keyStatus: 'active' | 'retired' | 'unknown';
}

/**
 * The first of `rows` whose signed text states what it was looked up as (its type, and its indicator or action), so a
 * row whose columns were changed is never served as another record's statement; undefined when none does.
 */
export function statingRow(
  rows: readonly StatementRow[],
  expected: { type: Statement['type']; riskIndicatorId?: string; ratingActionId?: string },
): StatementRow | undefined {
  return rows.find((row) => {
    let statement: Statement;
    try {
      statement = readJson(row.statement) as Statement;
    } catch {
      return false;
    }
    if (statement?.type !== expected.type) return false;
    if (expected.riskIndicatorId !== undefined && statement.risk_indicator_id !== expected.riskIndicatorId)
      return false;
    return (
      expected.ratingActionId === undefined ||
      (statement.type === 'rating_action' && statement.action?.id === expected.ratingActionId)
    );
  });
}

/** The latest publication statement of an indicator, its signature checked; null when it has none. */
export async function checkedPublicationStatement(
  ctx: ServiceContext,
  input: { riskIndicatorId: string },
): Promise<CheckedStatement | null> {
  const row = await latestPublicationStatement(ctx.store.db, input.riskIndicatorId);
  if (!row) return null;
  const key = await findSigningKey(ctx.store.db, row.kid);
  return {
    signed: signedOf(row),
    verifies:
      key !== undefined &&
      sha256Hex(row.statement) === row.statement_sha256 &&
      signatureVerifies(Buffer.from(row.statement, 'utf8'), row.signature, key.public_key),
    keyStatus: !key ? 'unknown' : key.not_after === null ? 'active' : 'retired',
  };
}

/** An indicator's latest publication statement, by what it signed. */
async function latestPublicationStatement(db: Kysely<Database>, riskIndicatorId: string) {
  return statingRow(await publicationStatementsOf(db, riskIndicatorId), { type: 'publication', riskIndicatorId });
}

/** The signed statement of an indicator's publication (its latest, when it was published again after a withdrawal). */
export async function publicationStatement(
  ctx: ServiceContext,
  input: { riskIndicatorId: string },
): Promise<SignedStatement> {
  const row = await latestPublicationStatement(ctx.store.db, input.riskIndicatorId);
  if (!row) throw new ServiceError('not_found', `no published indicator ${input.riskIndicatorId}`);
  return signedOf(row);
}

/**
 * Any statement, by the SHA-256 of its bytes (GET /api/public/statements/{statement_sha256}): the one whose text has
 * that hash, whatever its type, so a provider's chain can be walked back through `prev_statement_sha256`.
 */
export async function statementByHash(
  ctx: ServiceContext,
  input: { statementSha256: string },
): Promise<SignedStatement> {
  const rows = await statementsByHash(ctx.store.db, input.statementSha256);
  const row = rows.find((r) => sha256Hex(r.statement) === input.statementSha256);
  if (!row) throw new ServiceError('not_found', `no statement with SHA-256 ${input.statementSha256}`);
  return signedOf(row);
}
