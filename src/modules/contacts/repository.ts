import { randomUUID } from 'node:crypto';
import type { Executor } from '../../storage/database.ts';
import type { Cursor } from '../../storage/paging.ts';
import type { ContactRow, GroupRow, GroupWithCount, TemplateRow } from './types.ts';

export type { ContactRow, GroupRow, GroupWithCount, TemplateRow };

export interface ContactValues {
  name: string;
  phone: string;
  tags: string[];
  fields: Record<string, string>;
}

/** PGlite and pg answer jsonb alike, but a text[] may come back as a string from one of them. */
function contactFrom(row: ContactRow): ContactRow {
  const tags = Array.isArray(row.tags) ? row.tags : parseTextArray(String(row.tags));
  const fields = typeof row.fields === 'string' ? (JSON.parse(row.fields) as Record<string, string>) : row.fields;
  return { ...row, tags, fields };
}

function parseTextArray(text: string): string[] {
  const inner = text.replace(/^\{|\}$/g, '');
  return inner === '' ? [] : inner.split(',').map((tag) => tag.replace(/^"|"$/g, ''));
}

export async function insertContact(db: Executor, accountId: string, values: ContactValues, at: Date): Promise<ContactRow> {
  const [row] = await db('contacts')
    .insert({ id: randomUUID(), account_id: accountId, name: values.name, phone: values.phone, tags: values.tags, fields: JSON.stringify(values.fields), created_at: at, updated_at: at })
    .returning('*');
  return contactFrom(row as ContactRow);
}

/** Import: a contact per number, created or (already there) given these values. Answers whether each was new. */
export async function upsertContacts(db: Executor, accountId: string, rows: ContactValues[], at: Date): Promise<{ created: number; updated: number }> {
  let created = 0;
  for (const values of rows) {
    const [row] = (await db.raw(
      `insert into contacts (id, account_id, name, phone, tags, fields, created_at, updated_at)
       values (?, ?, ?, ?, ?::text[], ?::jsonb, ?, ?)
       on conflict (account_id, phone) do update set name = excluded.name, tags = excluded.tags, fields = excluded.fields, updated_at = excluded.updated_at
       returning (xmax = 0) as inserted`,
      [randomUUID(), accountId, values.name, values.phone, values.tags as never, JSON.stringify(values.fields), at, at],
    )).rows as { inserted: boolean }[];
    if (row?.inserted) created += 1;
  }
  return { created, updated: rows.length - created };
}

export async function findContact(db: Executor, accountId: string, id: string): Promise<ContactRow | undefined> {
  const row = await db<ContactRow>('contacts').where({ account_id: accountId, id }).first();
  return row ? contactFrom(row) : undefined;
}

/** Which of these numbers the account already has a contact for. */
export async function existingPhones(db: Executor, accountId: string, phones: string[]): Promise<Set<string>> {
  if (phones.length === 0) return new Set();
  const rows: { phone: string }[] = await db('contacts').where({ account_id: accountId }).whereIn('phone', phones).select('phone');
  return new Set(rows.map((row) => row.phone));
}

export async function updateContact(db: Executor, accountId: string, id: string, changes: Partial<ContactValues>, at: Date): Promise<ContactRow | undefined> {
  const values: Record<string, unknown> = { updated_at: at };
  if (changes.name !== undefined) values['name'] = changes.name;
  if (changes.phone !== undefined) values['phone'] = changes.phone;
  if (changes.tags !== undefined) values['tags'] = changes.tags;
  if (changes.fields !== undefined) values['fields'] = JSON.stringify(changes.fields);
  const [row] = await db('contacts').where({ account_id: accountId, id }).update(values).returning('*');
  return row ? contactFrom(row as ContactRow) : undefined;
}

export async function deleteContact(db: Executor, accountId: string, id: string): Promise<boolean> {
  const deleted = await db('contacts').where({ account_id: accountId, id }).delete().returning('id');
  return deleted.length > 0;
}

export interface ContactFilter {
  tag?: string;
  groupId?: string;
}

/** Newest first, one more than `limit` when there is a next page. */
export async function listContacts(db: Executor, accountId: string, filter: ContactFilter, limit: number, cursor?: Cursor): Promise<ContactRow[]> {
  const query = db<ContactRow>('contacts')
    .where('contacts.account_id', accountId)
    .select('contacts.*')
    .orderBy([{ column: 'contacts.created_at', order: 'desc' }, { column: 'contacts.id', order: 'desc' }])
    .limit(limit + 1);
  if (filter.tag) query.whereRaw('contacts.tags @> array[?]::text[]', [filter.tag]);
  if (filter.groupId) query.join('contact_group_members as m', 'm.contact_id', 'contacts.id').where('m.group_id', filter.groupId);
  if (cursor) query.whereRaw('(contacts.created_at, contacts.id) < (?, ?)', [cursor.createdAt, cursor.id]);
  return (await query).map(contactFrom);
}

/** The recipients of a send: a group's members or a tag's contacts, oldest first, at most `limit`. */
export async function recipients(db: Executor, accountId: string, filter: ContactFilter, limit: number): Promise<ContactRow[]> {
  const query = db<ContactRow>('contacts')
    .where('contacts.account_id', accountId)
    .select('contacts.*')
    .orderBy([{ column: 'contacts.created_at', order: 'asc' }, { column: 'contacts.id', order: 'asc' }])
    .limit(limit);
  if (filter.tag) query.whereRaw('contacts.tags @> array[?]::text[]', [filter.tag]);
  if (filter.groupId) query.join('contact_group_members as m', 'm.contact_id', 'contacts.id').where('m.group_id', filter.groupId);
  return (await query).map(contactFrom);
}

// Groups

export async function insertGroup(db: Executor, accountId: string, name: string, at: Date): Promise<GroupRow> {
  const [row] = await db('contact_groups').insert({ id: randomUUID(), account_id: accountId, name, created_at: at }).returning('*');
  return row as GroupRow;
}

export async function findGroup(db: Executor, accountId: string, id: string): Promise<GroupWithCount | undefined> {
  const [row] = await groupsWithCounts(db, accountId).where('g.id', id);
  return row;
}

function groupsWithCounts(db: Executor, accountId: string) {
  return db('contact_groups as g')
    .where('g.account_id', accountId)
    .select('g.*', db.raw('(select count(*) from contact_group_members m where m.group_id = g.id)::int as members'));
}

export async function listGroups(db: Executor, accountId: string, limit: number, cursor?: Cursor): Promise<GroupWithCount[]> {
  const query = groupsWithCounts(db, accountId)
    .orderBy([{ column: 'g.created_at', order: 'desc' }, { column: 'g.id', order: 'desc' }])
    .limit(limit + 1);
  if (cursor) query.whereRaw('(g.created_at, g.id) < (?, ?)', [cursor.createdAt, cursor.id]);
  return ((await query) as GroupWithCount[]).map((row) => ({ ...row, members: Number(row.members) }));
}

export async function renameGroup(db: Executor, accountId: string, id: string, name: string): Promise<boolean> {
  const updated = await db('contact_groups').where({ account_id: accountId, id }).update({ name }).returning('id');
  return updated.length > 0;
}

export async function deleteGroup(db: Executor, accountId: string, id: string): Promise<boolean> {
  const deleted = await db('contact_groups').where({ account_id: accountId, id }).delete().returning('id');
  return deleted.length > 0;
}

/** The ids among `ids` that are contacts of the account. */
export async function contactIdsOf(db: Executor, accountId: string, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows: { id: string }[] = await db('contacts').where({ account_id: accountId }).whereIn('id', ids).select('id');
  return rows.map((row) => row.id);
}

export async function addMembers(db: Executor, groupId: string, contactIds: string[]): Promise<void> {
  if (contactIds.length === 0) return;
  await db('contact_group_members').insert(contactIds.map((contactId) => ({ group_id: groupId, contact_id: contactId }))).onConflict(['group_id', 'contact_id']).ignore();
}

export async function removeMembers(db: Executor, groupId: string, contactIds: string[]): Promise<void> {
  if (contactIds.length === 0) return;
  await db('contact_group_members').where({ group_id: groupId }).whereIn('contact_id', contactIds).delete();
}

// Templates

export async function insertTemplate(db: Executor, accountId: string, name: string, text: string, at: Date): Promise<TemplateRow> {
  const [row] = await db('message_templates').insert({ id: randomUUID(), account_id: accountId, name, text, created_at: at, updated_at: at }).returning('*');
  return row as TemplateRow;
}

export async function findTemplate(db: Executor, accountId: string, id: string): Promise<TemplateRow | undefined> {
  return db<TemplateRow>('message_templates').where({ account_id: accountId, id }).first();
}

export async function listTemplates(db: Executor, accountId: string, limit: number, cursor?: Cursor): Promise<TemplateRow[]> {
  const query = db<TemplateRow>('message_templates')
    .where({ account_id: accountId })
    .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }])
    .limit(limit + 1);
  if (cursor) query.whereRaw('(created_at, id) < (?, ?)', [cursor.createdAt, cursor.id]);
  return query;
}

export async function updateTemplate(db: Executor, accountId: string, id: string, changes: { name?: string; text?: string }, at: Date): Promise<TemplateRow | undefined> {
  const [row] = await db('message_templates').where({ account_id: accountId, id }).update({ ...changes, updated_at: at }).returning('*');
  return row as TemplateRow | undefined;
}

export async function deleteTemplate(db: Executor, accountId: string, id: string): Promise<boolean> {
  const deleted = await db('message_templates').where({ account_id: accountId, id }).delete().returning('id');
  return deleted.length > 0;
}

// Export: everything of the account by id, a page at a time.

export async function contactsPage(db: Executor, accountId: string, after: string | undefined, limit: number): Promise<ContactRow[]> {
  const query = db<ContactRow>('contacts').where({ account_id: accountId }).orderBy('id').limit(limit);
  if (after) query.where('id', '>', after);
  return (await query).map(contactFrom);
}

export async function groupsPage(db: Executor, accountId: string, after: string | undefined, limit: number): Promise<(GroupRow & { member_ids: string[] })[]> {
  const query = db('contact_groups as g')
    .where('g.account_id', accountId)
    .select('g.*', db.raw('coalesce((select array_agg(m.contact_id::text order by m.contact_id) from contact_group_members m where m.group_id = g.id), array[]::text[]) as member_ids'))
    .orderBy('g.id')
    .limit(limit);
  if (after) query.where('g.id', '>', after);
  return ((await query) as (GroupRow & { member_ids: string[] | string })[]).map((row) => ({
    ...row,
    member_ids: Array.isArray(row.member_ids) ? row.member_ids : parseTextArray(String(row.member_ids)),
  }));
}

export async function templatesPage(db: Executor, accountId: string, after: string | undefined, limit: number): Promise<TemplateRow[]> {
  const query = db<TemplateRow>('message_templates').where({ account_id: accountId }).orderBy('id').limit(limit);
  if (after) query.where('id', '>', after);
  return query;
}
