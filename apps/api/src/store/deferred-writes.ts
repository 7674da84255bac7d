import {
  CompiledQuery,
  type DatabaseConnection,
  type Kysely,
  type OperationNode,
  type QueryResult,
  type RootOperationNode,
} from 'kysely';
import type { Database } from './schema.js';

/**
 * Deferred writes on PostgreSQL (decision 0038): inside a transaction that asks for it (`deferWrites`), a write
 * whose result the caller does not read (an insert or update without RETURNING) is held on the connection rather
 * than sent, and the writes held are sent together, as one statement of data-modifying WITH queries, just before
 * the next statement that reads (or returns) something, and before COMMIT. Each write is a round trip saved: a
 * publication alone goes to the server 12 times instead of 26 (BEGIN and COMMIT included); in a publishing batch,
 * which reads ahead for all its publications (decision 0040), once a publication.
 *
 * What keeps it exact:
 * - a read always sees every write made before it: the writes held are sent first, unless it is a select naming
 *   none of the tables they write (found in its tree; raw SQL in it counts as naming them all);
 * - a statement that writes and returns something is sent after every write held, in the order the code made them;
 * - writes sent together never write the same table (a second write to a table sends the first ones): no row is
 *   modified twice by one statement, no write needs to see another's rows (the WITH queries of one statement share
 *   one snapshot), and rows numbered by a sequence are numbered in the order the code wrote them (the WITH queries
 *   of one statement run in no set order); foreign keys are checked at the statement's end, when all are done;
 * - but for one case (decision 0040): a plain insert of one row (every value bound, no ON CONFLICT or RETURNING)
 *   into a table whose held write is a plain insert into the same columns joins it as its next row. One INSERT's
 *   rows are new rows that no other row of it modifies, inserted in the order of its VALUES list, so a sequence
 *   numbers them as two statements in that order would;
 * - a write that fails fails the statement it was sent in, and so the transaction, which is rolled back: an error
 *   surfaces from a later call than the write that caused it, never as a lost write;
 * - a held write answers with no row count (Kysely reads 0): a caller that needs the count must not defer.
 * SQLite runs every statement in process, where a round trip costs nothing: `deferWrites` does nothing there.
 */

/** What asks a connection to defer (never sent to the server; `select 1` if it ever were). */
const DEFER = '/* svc: defer writes until the next read */ select 1';

/** PostgreSQL's limit on the parameters of one statement. */
const MAX_PARAMETERS = 65_535;

interface Held {
  queries: CompiledQuery[];
  tables: Set<string>;
  parameters: number;
  /**
   * For each table whose held write is a plain insert of rows (PLAIN_ROW, with any rows withRow added), its place
   * in `queries`.
   */
  rows: Map<string, number>;
}

const nothingHeld = (): Held => ({ queries: [], tables: new Set(), parameters: 0, rows: new Map() });

/**
 * An insert of one row whose every value is a bound parameter, and nothing else (no ON CONFLICT, no RETURNING):
 * `insert into "t" ("a", "b") values ($1, $2)`, as Kysely's PostgreSQL compiler writes it. Group 1 is everything
 * up to the row, group 2 the row.
 */
const PLAIN_ROW = /^(insert into "\w+" \("\w+"(?:, "\w+")*\) values )(\(\$\d+(?:, \$\d+)*\))$/;

/**
 * A held plain insert with `next`'s row added to it, when `next` inserts a row into the same columns the same way
 * (the same text up to its row); else null. The rows are inserted in the order the code wrote them, so a sequence
 * numbers them in that order, as two statements would.
 */
function withRow(held: CompiledQuery, next: CompiledQuery): CompiledQuery | null {
  const row = PLAIN_ROW.exec(next.sql);
  if (!row || !held.sql.startsWith(row[1] as string)) return null;
  return {
    ...held,
    sql: `${held.sql}, ${shiftPlaceholders(row[2] as string, held.parameters.length)}`,
    parameters: [...held.parameters, ...next.parameters],
  };
}

/** Asks the transaction's connection to defer its writes until the next read or its commit (PostgreSQL only). */
export async function deferWrites(tx: Kysely<Database>, dialect: 'sqlite' | 'postgres'): Promise<void> {
  if (dialect !== 'postgres') return;
  if (!tx.isTransaction) throw new Error('writes are deferred inside a transaction only');
  await tx.executeQuery(CompiledQuery.raw(DEFER));
}

/**
 * Teaches a PostgreSQL connection to defer writes when asked (the dialect's onCreateConnection): its executeQuery
 * is wrapped, once, for the life of the connection.
 */
export function deferringWrites(connection: DatabaseConnection): void {
  const send = connection.executeQuery.bind(connection);
  let held: Held | null = null;
  const flush = async (): Promise<void> => {
    if (!held || held.queries.length === 0) return;
    const { queries } = held;
    held = nothingHeld();
    await send(together(queries));
  };
  connection.executeQuery = async <R>(query: CompiledQuery): Promise<QueryResult<R>> => {
    if (query.sql === DEFER) {
      // Asked again in the same transaction (a batch of publications): whatever is held stays held.
      held ??= nothingHeld();
      return { rows: [] };
    }
    if (held === null) return send<R>(query);
    if (query.sql === 'commit') {
      // A write that fails fails the commit: Kysely rolls the transaction back.
      await flush();
      held = null;
      return send<R>(query);
    }
    if (query.sql === 'rollback') {
      held = null;
      return send<R>(query);
    }
    const write = deferrable(query.query);
    if (write !== null) {
      const fits = held.parameters + query.parameters.length <= MAX_PARAMETERS;
      // A row into a table whose held write inserts rows the same way joins that insert (one statement, in order).
      const at = held.rows.get(write.table);
      const joined = fits && at !== undefined ? withRow(held.queries[at] as CompiledQuery, query) : null;
      if (joined !== null && at !== undefined) {
        held.queries[at] = joined;
        held.parameters += query.parameters.length;
        return { rows: [] };
      }
      if (held.tables.has(write.table) || !fits) await flush();
      if (PLAIN_ROW.test(query.sql)) held.rows.set(write.table, held.queries.length);
      held.queries.push(query);
      held.tables.add(write.table);
      held.parameters += query.parameters.length;
      return { rows: [] };
    }
    // A read of tables none of the held writes touch need not wait for them; anything else sends them first.
    const read = readTables(query.query);
    if (read === null || read.some((table) => held?.tables.has(table))) await flush();
    return send<R>(query);
  };
}

/** The table an insert or update writes when nothing of its result is read (no RETURNING, no WITH); else null. */
function deferrable(node: RootOperationNode): { table: string } | null {
  const n = node as unknown as Record<string, unknown>;
  if (n.returning !== undefined || n.with !== undefined) return null;
  let table: string | null = null;
  if (node.kind === 'InsertQueryNode') table = tableName(n.into as OperationNode | undefined);
  if (node.kind === 'UpdateQueryNode' && n.from === undefined && n.joins === undefined) {
    table = tableName(n.table as OperationNode | undefined);
  }
  return table === null ? null : { table };
}

/**
 * The tables a select reads, found anywhere in its tree (subqueries and joins too); null when it is not a select or
 * holds raw SQL, whose tables cannot be told.
 */
function readTables(node: RootOperationNode): string[] | null {
  if (node.kind !== 'SelectQueryNode') return null;
  const tables: string[] = [];
  const visit = (value: unknown): boolean => {
    if (Array.isArray(value)) return value.every(visit);
    if (value === null || typeof value !== 'object') return true;
    const kind = (value as { kind?: unknown }).kind;
    if (kind === 'RawNode') return false;
    if (kind === 'TableNode') {
      const name = tableName(value as OperationNode);
      if (name === null) return false;
      tables.push(name);
      return true;
    }
    return Object.values(value).every(visit);
  };
  return visit(node) ? tables : null;
}

function tableName(node: OperationNode | undefined): string | null {
  if (node?.kind !== 'TableNode') return null;
  const table = (node as unknown as { table: { schema?: unknown; identifier: { name: string } } }).table;
  return table.schema === undefined ? table.identifier.name : null;
}

/** Writes as one statement: each a data-modifying WITH query, its parameters renumbered after the ones before. */
export function together(queries: readonly CompiledQuery[]): CompiledQuery {
  if (queries.length === 1 && queries[0]) return queries[0];
  let offset = 0;
  const parts: string[] = [];
  const parameters: unknown[] = [];
  queries.forEach((query, i) => {
    parts.push(`"w${i}" as (${shiftPlaceholders(query.sql, offset)})`);
    parameters.push(...query.parameters);
    offset += query.parameters.length;
  });
  return CompiledQuery.raw(`with ${parts.join(', ')} select 1`, parameters);
}

/**
 * `$n` placeholders moved up by `by`, outside quoted literals and identifiers ('…', "…", a doubled quote inside
 * either being the quote itself): the only places Kysely's PostgreSQL compiler writes a `$` or a quote.
 */
export function shiftPlaceholders(text: string, by: number): string {
  if (by === 0) return text;
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (c === "'" || c === '"') {
      let end = i + 1;
      for (;;) {
        const at = text.indexOf(c, end);
        if (at < 0) throw new Error(`an unterminated ${c} in a statement to defer`);
        if (text[at + 1] === c) {
          end = at + 2;
          continue;
        }
        end = at + 1;
        break;
      }
      out += text.slice(i, end);
      i = end;
      continue;
    }
    if (c === '$' && isDigit(text[i + 1])) {
      let j = i + 1;
      while (isDigit(text[j])) j++;
      out += `$${Number(text.slice(i + 1, j)) + by}`;
      i = j;
      continue;
    }
    out += c;
    i++;
  }
  return out;
}

const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';
