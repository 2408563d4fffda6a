import type { Knex } from 'knex';
import type { Executor } from '../../storage/database.ts';
import { withDeviceObjectId } from '../devices/shared-queries.ts';
import { redactMessagesBefore } from '../../storage/message-redaction.ts';
import { oldestFirstAfter, type Cursor } from '../../storage/paging.ts';
import { columnsOf } from '../../storage/unnest-columns.ts';
import type { SmsCategory } from './category.ts';
import type { SmsStatus } from './status.ts';
import type { SmsRecord, SmsWithDevice } from './types.ts';

export type { SmsRecord, SmsWithDevice };

export interface SmsHistoryRow {
  id: number;
  sms_id: string;
  status: SmsStatus;
  source: 'api' | 'device' | 'system';
  reason: string | null;
  created_at: Date;
}

/** Stores SMS and their first history entries in one statement (one round trip, atomic). */
export async function insertSms(db: Executor, batch: SmsRecord[], source: SmsHistoryRow['source']): Promise<void> {
  await db.raw(
    `with created as (
       insert into sms (id, object_id, account_id, device_id, device_named, phone, message, status, sim_slot, callback_id,
                        send_at, expires_at, priority, created_at, updated_at, kind, is_encrypted, data, data_port, transactional,
                        passphrase_fingerprint, way_in, category, device_group, route_check_at)
       select * from unnest(?::uuid[], ?::text[], ?::uuid[], ?::uuid[], ?::bool[], ?::text[], ?::text[], ?::text[], ?::int2[], ?::uuid[],
                            ?::timestamptz[], ?::timestamptz[], ?::int2[], ?::timestamptz[], ?::timestamptz[],
                            ?::text[], ?::bool[], ?::text[], ?::int4[], ?::bool[], ?::text[], ?::text[], ?::text[], ?::text[], ?::timestamptz[])
       returning id, status, created_at)
     insert into sms_status_history (sms_id, status, source, created_at)
     select id, status, ?, created_at from created`,
    [
      ...columnsOf(batch, [
        'id', 'object_id', 'account_id', 'device_id', 'device_named', 'phone', 'message', 'status', 'sim_slot', 'callback_id',
        'send_at', 'expires_at', 'priority', 'created_at', 'updated_at', 'kind', 'is_encrypted', 'data', 'data_port',
      ]),
      batch.map((sms) => sms.transactional ?? false),
      batch.map((sms) => sms.passphrase_fingerprint ?? null),
      batch.map((sms) => sms.way_in ?? 'api'),
      batch.map((sms) => sms.category ?? null),
      batch.map((sms) => sms.device_group ?? null),
      batch.map((sms) => sms.route_check_at ?? null),
      source,
    ] as never,
  );
}

export async function findSms(db: Executor, accountId: string, id: string): Promise<SmsRecord | undefined> {
  return db<SmsRecord>('sms').where({ account_id: accountId, id }).first();
}

export interface SmsFilter {
  statuses?: SmsStatus[];
  deviceId?: string;
  from?: Date;
  to?: Date;
  /** The recipient, exactly (E.164). */
  phone?: string;
  /** Text, phone or status label, as the legacy list searches (whereSearchMatches). */
  search?: SmsSearch;
  /** 'canary': only the fleet health checks, which every other list leaves out. */
  kind?: 'canary';
  /** Only SMS sent with this category. */
  category?: SmsCategory;
}

export async function listSms(db: Executor, accountId: string, filter: SmsFilter, limit: number, cursor?: Cursor): Promise<SmsRecord[]> {
  const query = db<SmsRecord>('sms')
    .where({ account_id: accountId })
    .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }])
    .limit(limit + 1);
  if (filter.statuses) query.whereIn('status', filter.statuses);
  if (filter.deviceId) query.where({ device_id: filter.deviceId });
  if (filter.from) query.where('created_at', '>=', filter.from);
  if (filter.to) query.where('created_at', '<', filter.to);
  if (filter.phone) query.where({ phone: filter.phone });
  if (filter.category) query.where({ category: filter.category });
  if (filter.search) whereSearchMatches(query, filter.search);
  // Fleet health checks are the gateway's own SMS: in no list but the one asking for them.
  if (filter.kind === 'canary') query.where({ kind: 'canary' });
  else query.whereNot({ kind: 'canary' });
  if (cursor) query.whereRaw('(created_at, id) < (?, ?)', [cursor.createdAt, cursor.id]);
  return query;
}

/** The account's SMS with these ids, with the SIM slot the phone reported sending from. */
export async function findManyWithDevice(db: Executor, accountId: string, ids: string[]): Promise<SmsWithDevice[]> {
  if (ids.length === 0) return [];
  return db('sms')
    .select('sms.*')
    .modify(withDeviceObjectId('sms.device_id'))
    .where('sms.account_id', accountId)
    .whereIn('sms.id', ids);
}

/**
 * Retention: removes the text of up to `batch` of the account's SMS created before `before` that
 * have left the queue (pending ones still need it), and, with `hash`, replaces their number by its
 * hash. Status, times and the row stay for statistics. Answers how many it redacted.
 */
export async function redactBefore(db: Executor, accountId: string, before: Date, at: Date, batch: number, hash?: (phone: string) => string): Promise<number> {
  const leftTheQueue = (query: Knex.QueryBuilder) => query.whereNotIn('status', ['pending', 'processing']);
  return redactMessagesBefore(db, 'sms', { accountId, before, at, batch, hash, onlyWhere: leftTheQueue });
}

/** The account's SMS oldest first from the (created_at, id) after `cursor`: an export reads them page by page. */
export async function pageForExport(db: Executor, accountId: string, limit: number, cursor?: Cursor): Promise<SmsRecord[]> {
  return oldestFirstAfter(db<SmsRecord>('sms').where({ account_id: accountId }), cursor, limit);
}

export async function historyOf(db: Executor, smsId: string): Promise<SmsHistoryRow[]> {
  return db<SmsHistoryRow>('sms_status_history').where({ sms_id: smsId }).orderBy('id');
}

/** By the Extended API's UUID or the legacy family's 24-hex object id: clients may mix them. */
export async function findSmsByAnyId(db: Executor, accountId: string, id: { uuid?: string; objectId?: string }): Promise<SmsWithDevice | undefined> {
  const query = db('sms')
    .select('sms.*')
    .modify(withDeviceObjectId('sms.device_id'))
    .where('sms.account_id', accountId);
  if (id.uuid) query.where('sms.id', id.uuid);
  else query.where('sms.object_id', id.objectId!);
  return query.first();
}

/** Deletes the account's SMS (its history goes with it); answers its ids, or nothing if there was none. */
export async function deleteSms(
  db: Executor,
  accountId: string,
  id: { uuid?: string; objectId?: string },
): Promise<{ id: string; object_id: string; account_id: string } | undefined> {
  const query = db('sms').where({ account_id: accountId });
  if (id.uuid) query.where({ id: id.uuid });
  else query.where({ object_id: id.objectId! });
  // The deleted rows, not a count: PGlite and pg report counts differently.
  const [deleted] = await query.delete().returning(['id', 'object_id', 'account_id']);
  return deleted;
}

export interface SmsSearch {
  /** Case-insensitive substring of message or phone. */
  text?: string;
  /** Statuses whose label matched the search. */
  statuses?: SmsStatus[];
  /**
   * Set when pending SMS are told apart by attempt, as the legacy labels tell them: pending in
   * statuses is then an SMS on its first attempt only, and this says whether one waiting for
   * another attempt (attempt above 1, labelled processing) matches.
   */
  retrying?: boolean;
}

/** Text that can be part of a phone number as stored: + and digits. */
const E164_PART = /^[+0-9]+$/;

/**
 * The condition on sms_search (aliased `s`) that its message or phone contains the search text,
 * case-insensitively: the trigram indexes of migration 044 serve it.
 */
function textMatch(text: string): { sql: string; bindings: string[] } {
  // % _ and \ in the search are literal characters, not patterns.
  const pattern = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  // Phones are stored in E.164 (common/phone.ts): text with anything but digits and + is never
  // part of one. Not testing it saves a third of what a broad word search costs per row read.
  return E164_PART.test(text)
    ? { sql: `(s.message ilike ? escape '\\' or s.phone ilike ? escape '\\')`, bindings: [pattern, pattern] }
    : { sql: `s.message ilike ? escape '\\'`, bindings: [pattern] };
}

/** A search matching on text alone, whose matches sms_search finds without reading sms. */
function textOnly(search: SmsSearch): search is { text: string } {
  return search.text !== undefined && !namesStatuses(search);
}

function namesStatuses(search: SmsSearch): boolean {
  return Boolean(search.statuses?.length) || search.retrying === true;
}

/**
 * Keeps the SMS whose message or phone contains the search text (in sms_search, migration 044) or
 * whose status is one the search named. The Extended list searches through here, and the legacy
 * list when a status label matched too.
 */
export function whereSearchMatches<Q extends Knex.QueryBuilder>(query: Q, search: SmsSearch): Q {
  if (search.text === undefined) return query;
  const text = textMatch(search.text);
  const found = `exists (select 1 from sms_search s where s.sms_id = sms.id and s.account_id = sms.account_id and ${text.sql})`;
  // Alone, the exists is a semi-join: PostgreSQL may start from the trigram indexes.
  if (!namesStatuses(search)) {
    query.whereRaw(found, text.bindings);
    return query;
  }
  query.where((or) => {
    orStatusMatches(or, search);
    or.orWhereRaw(found, text.bindings);
  });
  return query;
}

/** Adds, as alternatives, the statuses the search named; pending ones by attempt when it tells them apart. */
function orStatusMatches(or: Knex.QueryBuilder, search: SmsSearch): void {
  const statuses = search.statuses ?? [];
  if (search.retrying === undefined) {
    if (statuses.length) or.orWhereIn('sms.status', statuses);
    return;
  }
  const others = statuses.filter((status) => status !== 'pending');
  if (others.length) or.orWhereIn('sms.status', others);
  const firstAttempt = statuses.includes('pending');
  if (firstAttempt && search.retrying) or.orWhere('sms.status', 'pending');
  else if (firstAttempt) or.orWhere((pending) => pending.where('sms.status', 'pending').where('sms.attempt', '<=', 1));
  else if (search.retrying) or.orWhere((pending) => pending.where('sms.status', 'pending').where('sms.attempt', '>', 1));
}

/** The account's SMS whose text matches (no canary SMS among them: sms_search has none). */
function textMatchesOf(db: Executor, accountId: string, text: string): Knex.QueryBuilder {
  const match = textMatch(text);
  return db('sms_search as s').where('s.account_id', accountId).whereRaw(match.sql, match.bindings);
}

/**
 * One page of the account's matching SMS, newest first. A search on text alone takes the page
 * from sms_search and reads sms for its rows only (each sms_search row has its SMS, none a canary
 * one): for a broad search PostgreSQL walks sms_search_account_created newest first and stops
 * once it has the page; for a selective one it takes the matches from the trigram indexes and
 * sorts them. A search that also names statuses reads sms newest first.
 */
export async function searchSms(db: Executor, accountId: string, search: SmsSearch, limit: number, offset: number): Promise<SmsWithDevice[]> {
  if (!textOnly(search)) {
    return whereSearchMatches(db('sms').where('sms.account_id', accountId).whereNot('sms.kind', 'canary'), search)
      .select('sms.*')
      .modify(withDeviceObjectId('sms.device_id'))
      .orderBy([{ column: 'sms.created_at', order: 'desc' }, { column: 'sms.id', order: 'desc' }])
      .limit(limit)
      .offset(offset) as Promise<SmsWithDevice[]>;
  }
  const page = textMatchesOf(db, accountId, search.text)
    .select('s.sms_id', 's.created_at')
    .orderBy([{ column: 's.created_at', order: 'desc' }, { column: 's.sms_id', order: 'desc' }])
    .limit(limit)
    .offset(offset);
  return db
    .from(page.as('page'))
    .join('sms', 'sms.id', 'page.sms_id')
    .select('sms.*')
    .modify(withDeviceObjectId('sms.device_id'))
    .orderBy([{ column: 'page.created_at', order: 'desc' }, { column: 'page.sms_id', order: 'desc' }]) as Promise<SmsWithDevice[]>;
}

/**
 * How many of the account's SMS match, counting no further than `atMost`: the scan stops there,
 * so a broad search costs what its first `atMost` matches cost, not what all of them do.
 * Deliberately without an order: with one, PostgreSQL walks the index by creation newest first
 * for a word it takes for common, and on 1,000,000 rows a word in 1 SMS of 540 that it took for
 * 1 in 100 read the whole history (790 ms); without, it took the trigram indexes (13 ms).
 */
export async function countSmsUpTo(db: Executor, accountId: string, search: SmsSearch, atMost: number | undefined): Promise<number> {
  const matches = textOnly(search)
    ? textMatchesOf(db, accountId, search.text).select(db.raw('1'))
    : whereSearchMatches(db('sms').where('sms.account_id', accountId).whereNot('sms.kind', 'canary'), search).select(db.raw('1'));
  if (atMost !== undefined) matches.limit(atMost);
  const row = await db.from(matches.as('matches')).count<{ n: number | string }[]>({ n: '*' }).first();
  return Number(row?.n ?? 0);
}

/** How many SMS the account has: the sum of its counts, which triggers keep as SMS are inserted and deleted (migration 038; canary SMS are not counted, 042). */
export async function countAllSms(db: Executor, accountId: string): Promise<number> {
  const row = await db('sms_counts').where({ account_id: accountId }).sum<{ n: number | string | null }[]>({ n: 'sms' }).first();
  return Number(row?.n ?? 0);
}
