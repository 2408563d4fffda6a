// The conversations table. Every write is an upsert that only moves a conversation forward
// (the newest message each way wins, whatever order the writes come in), so hearing the same
// SMS twice changes nothing.
import { randomUUID } from 'node:crypto';
import type { Executor } from '../../storage/database.ts';
import type { Cursor } from '../../storage/paging.ts';
import type { ConversationRow } from './types.ts';

export type { ConversationRow };

/** INT8/INT4 come back as numbers or strings depending on the driver. */
function normalize(row: ConversationRow | undefined): ConversationRow | undefined {
  return row ? { ...row, unread_count: Number(row.unread_count) } : undefined;
}

/** The latest SMS sent to a number, as one write records it. */
export interface OutgoingActivity {
  accountId: string;
  phone: string;
  smsId: string;
  at: Date;
}

/**
 * Moves the conversations of these sent SMS forward, one statement for all. The caller gives at
 * most one per conversation (a statement may change a row once). Rows are locked in key order, so
 * two such writes never wait for each other in a circle.
 */
export async function recordOutgoing(db: Executor, sent: OutgoingActivity[]): Promise<void> {
  if (sent.length === 0) return;
  const rows = [...sent].sort((a, b) => (a.accountId === b.accountId ? compare(a.phone, b.phone) : compare(a.accountId, b.accountId)));
  await db.raw(
    `insert into conversations (id, account_id, phone, last_activity_at, last_sms_id, last_sms_at)
     select gen_random_uuid(), v.account_id, v.phone, v.at, v.sms_id, v.at
       from unnest(?::uuid[], ?::text[], ?::uuid[], ?::timestamptz[]) with ordinality as v(account_id, phone, sms_id, at, n)
      order by v.n
     on conflict (account_id, phone) do update set
       last_sms_id = case when conversations.last_sms_at is null or excluded.last_sms_at >= conversations.last_sms_at
                          then excluded.last_sms_id else conversations.last_sms_id end,
       last_sms_at = greatest(conversations.last_sms_at, excluded.last_sms_at),
       last_activity_at = greatest(conversations.last_activity_at, excluded.last_activity_at)`,
    [rows.map((row) => row.accountId), rows.map((row) => row.phone), rows.map((row) => row.smsId), rows.map((row) => row.at.toISOString())] as never,
  );
}

/** Any fixed order serves: it only has to be the same for every writer. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A received SMS: newest incoming if it is, and one more unread either way. */
export async function recordIncoming(db: Executor, accountId: string, phone: string, incomingId: string, at: Date): Promise<void> {
  await db.raw(
    `insert into conversations (id, account_id, phone, last_activity_at, last_incoming_id, last_incoming_at, unread_count)
     values (?, ?, ?, ?, ?, ?, 1)
     on conflict (account_id, phone) do update set
       last_incoming_id = case when conversations.last_incoming_at is null or excluded.last_incoming_at >= conversations.last_incoming_at
                               then excluded.last_incoming_id else conversations.last_incoming_id end,
       last_incoming_at = greatest(conversations.last_incoming_at, excluded.last_incoming_at),
       last_activity_at = greatest(conversations.last_activity_at, excluded.last_activity_at),
       unread_count = conversations.unread_count + 1`,
    [randomUUID(), accountId, phone, at, incomingId, at],
  );
}

/** Newest activity first; the cursor holds the (last_activity_at, id) of the previous page's last row. */
export async function listConversations(db: Executor, accountId: string, limit: number, cursor?: Cursor, unreadOnly = false): Promise<ConversationRow[]> {
  const query = db<ConversationRow>('conversations')
    .where({ account_id: accountId })
    .orderBy([{ column: 'last_activity_at', order: 'desc' }, { column: 'id', order: 'desc' }])
    .limit(limit + 1);
  if (unreadOnly) query.where('unread_count', '>', 0);
  if (cursor) query.whereRaw('(last_activity_at, id) < (?, ?)', [cursor.createdAt, cursor.id]);
  return (await query).map((row) => normalize(row)!);
}

export async function findConversation(db: Executor, accountId: string, phone: string): Promise<ConversationRow | undefined> {
  return normalize(await db<ConversationRow>('conversations').where({ account_id: accountId, phone }).first());
}

export async function markRead(db: Executor, accountId: string, phone: string, at: Date): Promise<ConversationRow | undefined> {
  const [row] = await db<ConversationRow>('conversations')
    .where({ account_id: accountId, phone })
    .update({ unread_count: 0, read_at: at })
    .returning('*');
  return normalize(row as ConversationRow | undefined);
}

/**
 * Replaces the number of the account's conversations quiet since `before` by what `hash` makes
 * of it, a batch at a time; answers how many it changed. Already hashed numbers are left alone.
 */
export async function hashQuietPhones(db: Executor, accountId: string, before: Date, batch: number, hash: (phone: string) => string): Promise<number> {
  const rows = await db<ConversationRow>('conversations')
    .where({ account_id: accountId })
    .where('last_activity_at', '<', before)
    .whereNot('phone', 'like', 'hmac:%')
    .select('id', 'phone')
    .limit(batch);
  for (const row of rows) {
    const hashed = hash(row.phone);
    // Two numbers never hash alike; a conversation already hashed under this value is merged away.
    const taken = await db('conversations').where({ account_id: accountId, phone: hashed }).first('id');
    if (taken) await db('conversations').where({ id: row.id }).delete();
    else await db('conversations').where({ id: row.id }).update({ phone: hashed });
  }
  return rows.length;
}

/** Every conversation of the account, oldest first, a page at a time (export). */
export async function pageForExport(db: Executor, accountId: string, after: string | undefined, limit: number): Promise<ConversationRow[]> {
  const query = db<ConversationRow>('conversations').where({ account_id: accountId }).orderBy('id').limit(limit);
  if (after) query.where('id', '>', after);
  return (await query).map((row) => normalize(row)!);
}
