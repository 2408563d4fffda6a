// Lists are newest first and paged with an opaque cursor (keyset paging): a page costs the same
// on the millionth row as on the first, and rows added meanwhile never shift a page. The cursor
// encodes the (created_at, id) of the last row of the previous page.
import type { Knex } from 'knex';
import { AppError } from '../common/errors.ts';
import { UUID_PATTERN } from '../common/object-id.ts';

export interface Cursor {
  createdAt: Date;
  id: string;
}

export function encodeCursor(row: { created_at: Date; id: string }): string {
  return Buffer.from(JSON.stringify([row.created_at.toISOString(), row.id])).toString('base64url');
}

/**
 * A blank cursor (`?cursor=`, or spaces) is what a client sends when it filled in the previous
 * page's next_cursor and there was none: that page was the last. Read as the first page it would
 * send such a client round the list forever, so it is refused as blank; the first page is asked
 * for by leaving cursor out.
 */
export const BLANK_CURSOR = 'cursor is blank; leave it out for the first page, or give the next_cursor of the previous page (null on the last page)';

/**
 * The same mistake written out by a generated client: a null (or undefined) next_cursor put into
 * the query as the word. Said as such, since "not a cursor" alone leaves the client to guess.
 */
export const NULL_CURSOR = (raw: string) =>
  `cursor is "${raw}", which is no cursor: a cursor is the next_cursor of a previous page, and a null next_cursor means that page was the last; leave cursor out for the first page`;

const NOT_A_CURSOR = 'cursor is not a cursor this API returned: give the next_cursor of a previous page, or leave cursor out for the first page';

export function decodeCursor(raw: string | undefined): Cursor | undefined {
  if (raw === undefined) return undefined;
  if (raw.trim() === '') {
    throw new AppError('validation_failed', BLANK_CURSOR, [{ field: 'cursor', in: 'query', message: BLANK_CURSOR }]);
  }
  if (/^(null|undefined|none|nil)$/i.test(raw.trim())) {
    const message = NULL_CURSOR(raw.trim());
    throw new AppError('validation_failed', message, [{ field: 'cursor', in: 'query', message }]);
  }
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as [unknown, unknown];
    const date = new Date(String(createdAt));
    // Cursors are ours, but clients can send anything: check every part before it reaches SQL.
    const year = date.getUTCFullYear();
    if (typeof id === 'string' && UUID_PATTERN.test(id) && year >= 1970 && year <= 9999) return { createdAt: date, id };
  } catch {
    // fall through to the error below
  }
  throw new AppError('validation_failed', NOT_A_CURSOR, [{ field: 'cursor', in: 'query', message: NOT_A_CURSOR }]);
}

/** Cuts the one-extra row a page query fetches and derives the next cursor from it. */
export function page<T extends { created_at: Date; id: string }>(rows: T[], limit: number): { rows: T[]; nextCursor: string | null } {
  return pageBy(rows, limit, (row) => row);
}

/**
 * The same for a list in another order than its rows' creation (calls by when they started,
 * conversations by their last activity): the cursor holds the time and id `positionOf` answers
 * for the last row kept.
 */
export function pageBy<T>(rows: T[], limit: number, positionOf: (row: T) => { created_at: Date; id: string }): { rows: T[]; nextCursor: string | null } {
  if (rows.length <= limit) return { rows, nextCursor: null };
  const kept = rows.slice(0, limit);
  return { rows: kept, nextCursor: encodeCursor(positionOf(kept[kept.length - 1]!)) };
}

/**
 * Orders `query` oldest first and keeps `limit` rows from the (created_at, id) after `after`: an
 * export reads a whole table this way, page by page, each page after the last row of the one
 * before; rows added meanwhile come last.
 */
export function oldestFirstAfter<Query extends Knex.QueryBuilder>(query: Query, after: Cursor | undefined, limit: number): Query {
  query.orderBy([{ column: 'created_at', order: 'asc' }, { column: 'id', order: 'asc' }]).limit(limit);
  if (after) query.whereRaw('(created_at, id) > (?, ?)', [after.createdAt, after.id]);
  return query;
}
