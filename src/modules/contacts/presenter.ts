import type { Static } from '@sinclair/typebox';
import type { ContactRow, GroupWithCount, TemplateRow } from './types.ts';
import type { CheckedContact } from './service.ts';
import type { ContactView, GroupView, ImportDryRun, TemplateView } from './schema.ts';

export function presentContact(row: ContactRow): Static<typeof ContactView> {
  return { id: row.id, name: row.name, phone: row.phone, tags: row.tags, fields: row.fields, created_at: row.created_at.toISOString(), updated_at: row.updated_at.toISOString() };
}

export function presentGroup(row: GroupWithCount): Static<typeof GroupView> {
  return { id: row.id, name: row.name, members: row.members, created_at: row.created_at.toISOString() };
}

export function presentTemplate(row: TemplateRow): Static<typeof TemplateView> {
  return { id: row.id, name: row.name, text: row.text, created_at: row.created_at.toISOString(), updated_at: row.updated_at.toISOString() };
}

export function presentCheckedContact(entry: CheckedContact): Static<typeof ImportDryRun>['data'][number] {
  if (entry.errors) return { index: entry.index, valid: false, errors: entry.errors };
  return { index: entry.index, valid: true, action: entry.action, ...entry.values };
}
