import type { Executor } from '../../storage/database.ts';
import type { InboundRuleRow } from './types.ts';

export type RuleValues = Omit<InboundRuleRow, 'account_id' | 'position' | 'hits' | 'regex_timeouts' | 'last_hit_at' | 'last_timeout_at' | 'created_at' | 'updated_at'>;

export async function listRules(db: Executor, accountId: string): Promise<InboundRuleRow[]> {
  return db<InboundRuleRow>('inbound_rules').where({ account_id: accountId }).orderBy([{ column: 'position' }, { column: 'created_at' }]);
}

export async function findRule(db: Executor, accountId: string, id: string): Promise<InboundRuleRow | undefined> {
  return db<InboundRuleRow>('inbound_rules').where({ account_id: accountId, id }).first();
}

export async function countRules(db: Executor, accountId: string): Promise<number> {
  const [row] = await db('inbound_rules').where({ account_id: accountId }).count({ n: '*' });
  return Number(row?.n ?? 0);
}

export async function insertRule(db: Executor, accountId: string, values: RuleValues, position: number): Promise<InboundRuleRow> {
  const now = new Date();
  const [row] = await db<InboundRuleRow>('inbound_rules')
    .insert({ ...values, account_id: accountId, position, created_at: now, updated_at: now } as never)
    .returning('*');
  return row!;
}

export async function updateRule(db: Executor, accountId: string, id: string, values: Partial<RuleValues>): Promise<InboundRuleRow | undefined> {
  const [row] = await db<InboundRuleRow>('inbound_rules')
    .where({ account_id: accountId, id })
    .update({ ...values, updated_at: new Date() } as never)
    .returning('*');
  return row;
}

export async function deleteRule(db: Executor, accountId: string, id: string): Promise<boolean> {
  return (await db('inbound_rules').where({ account_id: accountId, id }).delete().returning('id')).length > 0;
}

export async function setPosition(db: Executor, accountId: string, id: string, position: number): Promise<void> {
  await db('inbound_rules').where({ account_id: accountId, id }).update({ position });
}

export async function countHits(db: Executor, ids: string[], at: Date): Promise<void> {
  if (ids.length > 0) await db('inbound_rules').whereIn('id', ids).update({ hits: db.raw('hits + 1'), last_hit_at: at });
}

export async function countTimeouts(db: Executor, ids: string[], at: Date): Promise<void> {
  if (ids.length > 0) await db('inbound_rules').whereIn('id', ids).update({ regex_timeouts: db.raw('regex_timeouts + 1'), last_timeout_at: at });
}

/**
 * Takes the right to auto-reply to `phone` now: true when the account has not auto-replied to it
 * within the window (and records this reply), false otherwise. One statement, so two nodes
 * hearing the same sender at once cannot both reply.
 */
export async function claimAutoReply(db: Executor, accountId: string, phone: string, at: Date, windowMs: number): Promise<boolean> {
  const { rows } = await db.raw<{ rows: unknown[] }>(
    `insert into inbound_auto_replies (account_id, phone, replied_at) values (?, ?, ?)
     on conflict (account_id, phone) do update set replied_at = excluded.replied_at
      where inbound_auto_replies.replied_at <= ?
     returning 1`,
    [accountId, phone, at, new Date(at.getTime() - windowMs)],
  );
  return rows.length > 0;
}

export async function addTags(db: Executor, accountId: string, incomingId: string, tags: string[]): Promise<void> {
  if (tags.length === 0) return;
  await db('incoming_sms_tags')
    .insert(tags.map((tag) => ({ incoming_sms_id: incomingId, account_id: accountId, tag })))
    .onConflict(['incoming_sms_id', 'tag'])
    .ignore();
}

/**
 * The tags of one received SMS of the account, sorted; undefined when the account received no SMS
 * with this id. Read from the SMS the tags hang on, in one statement, so that an unknown id and
 * an SMS without tags are told apart.
 */
export async function tagsOf(db: Executor, accountId: string, incomingId: string): Promise<string[] | undefined> {
  const rows: { tag: string | null }[] = await db('incoming_sms as s')
    .leftJoin('incoming_sms_tags as t', 't.incoming_sms_id', 's.id')
    .where({ 's.account_id': accountId, 's.id': incomingId })
    .orderBy('t.tag')
    .select('t.tag');
  if (rows.length === 0) return undefined;
  return rows.flatMap((row) => (row.tag === null ? [] : [row.tag]));
}
