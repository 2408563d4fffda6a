// Extended API v1: the account's contacts, groups of contacts and message templates.
import { defineRoute } from '../../http/route.ts';
import { decodeCursor, page } from '../../http/pagination.ts';
import { presentCheckedContact, presentContact, presentGroup, presentTemplate } from './presenter.ts';
import { importBodyFromCsv, MAX_IMPORT_COLUMNS } from './import-csv.ts';
import {
  ContactBody,
  ContactList,
  ContactListQuery,
  ContactPatch,
  ContactView,
  GroupBody,
  GroupList,
  GroupPatch,
  GroupView,
  IdParams,
  ImportBody,
  ImportDone,
  ImportDryRun,
  ImportQuery,
  ListQuery,
  MembersBody,
  TemplateBody,
  TemplateList,
  TemplatePatch,
  TemplateView,
} from './schema.ts';
import type { ContactService } from './service.ts';

const CONTACTS = 'Contacts';
const IMPORT_BODY_LIMIT = 4 * 1024 * 1024;

export function contactRoutes(contacts: ContactService) {
  return [
    defineRoute({
      method: 'get',
      path: '/contacts',
      operationId: 'listContacts',
      summary: 'List the account\'s contacts, newest first; tag or group_id narrows the list',
      tag: CONTACTS,
      permission: 'sms:read',
      query: ContactListQuery,
      responses: { 200: { description: 'a page of contacts', schema: ContactList } },
      async handle({ auth, query }) {
        const rows = await contacts.list(auth.accountId, { ...(query.tag ? { tag: query.tag } : {}), ...(query.group_id ? { groupId: query.group_id } : {}) }, query.limit, decodeCursor(query.cursor));
        const { rows: kept, nextCursor } = page(rows, query.limit);
        return { status: 200, body: { data: kept.map(presentContact), next_cursor: nextCursor } };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/contacts',
      operationId: 'createContact',
      summary: 'Add a contact: a number (unique in the account), a name, tags and custom fields',
      tag: CONTACTS,
      permission: 'sms:send',
      body: ContactBody,
      responses: { 201: { description: 'the contact', schema: ContactView } },
      errors: ['validation_failed', 'invalid_phone', 'conflict'],
      async handle({ auth, body }) {
        return { status: 201, body: presentContact(await contacts.create(auth.accountId, body)) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/contacts/import',
      operationId: 'importContacts',
      summary: 'Import contacts from CSV (or JSON); ?dry_run=true previews each row',
      description:
        'Takes text/csv with a header row (phone required; name; tags separated by ";"; every other column a custom field of ' +
        'that name, or JSON {"contacts": [...]} with the fields of POST /contacts. A number already a contact is updated (name, ' +
        'tags and fields replaced). Every row is checked first: if any is wrong the answer is 400 with a detail per bad row ' +
        '(contacts.{index}...) and nothing is written; otherwise all are written in one transaction. With ?dry_run=true the ' +
        `answer is each row's result (create, update, or its errors) and nothing is written. At most ${MAX_IMPORT_COLUMNS} columns.`,
      tag: CONTACTS,
      permission: 'sms:send',
      body: ImportBody,
      query: ImportQuery,
      csv: importBodyFromCsv,
      bodyLimitBytes: IMPORT_BODY_LIMIT,
      responses: {
        200: { description: 'dry_run=true: each row\'s result; otherwise how many were created and updated', schema: ImportDryRun },
        201: { description: 'imported', schema: ImportDone },
      },
      errors: ['validation_failed', 'payload_too_large'],
      async handle({ auth, body, query }) {
        if (query.dry_run) return { status: 200, body: { data: (await contacts.checkImport(auth.accountId, body.contacts)).map(presentCheckedContact) } };
        return { status: 201, body: await contacts.import(auth.accountId, body.contacts) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/contacts/:id',
      operationId: 'getContact',
      summary: 'Read a contact',
      tag: CONTACTS,
      permission: 'sms:read',
      params: IdParams,
      responses: { 200: { description: 'the contact', schema: ContactView } },
      errors: ['contact_not_found'],
      async handle({ auth, params }) {
        return { status: 200, body: presentContact(await contacts.get(auth.accountId, params.id)) };
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/contacts/:id',
      operationId: 'updateContact',
      summary: 'Change a contact (tags and fields are replaced whole)',
      tag: CONTACTS,
      permission: 'sms:send',
      params: IdParams,
      body: ContactPatch,
      responses: { 200: { description: 'the contact as changed', schema: ContactView } },
      errors: ['contact_not_found', 'validation_failed', 'invalid_phone', 'conflict'],
      async handle({ auth, params, body }) {
        return { status: 200, body: presentContact(await contacts.update(auth.accountId, params.id, body)) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/contacts/:id',
      operationId: 'deleteContact',
      summary: 'Delete a contact (it leaves its groups; its SMS stay)',
      tag: CONTACTS,
      permission: 'sms:send',
      params: IdParams,
      responses: { 204: { description: 'deleted' } },
      errors: ['contact_not_found'],
      async handle({ auth, params }) {
        await contacts.delete(auth.accountId, params.id);
        return { status: 204 };
      },
    }),

    defineRoute({
      method: 'get',
      path: '/contact-groups',
      operationId: 'listContactGroups',
      summary: 'List the account\'s contact groups with their member counts, newest first',
      tag: CONTACTS,
      permission: 'sms:read',
      query: ListQuery,
      responses: { 200: { description: 'a page of groups', schema: GroupList } },
      async handle({ auth, query }) {
        const { rows, nextCursor } = page(await contacts.listGroups(auth.accountId, query.limit, decodeCursor(query.cursor)), query.limit);
        return { status: 200, body: { data: rows.map(presentGroup), next_cursor: nextCursor } };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/contact-groups',
      operationId: 'createContactGroup',
      summary: 'Create a group (a name unique in the account), optionally with members',
      tag: CONTACTS,
      permission: 'sms:send',
      body: GroupBody,
      responses: { 201: { description: 'the group', schema: GroupView } },
      errors: ['validation_failed', 'conflict'],
      async handle({ auth, body }) {
        return { status: 201, body: presentGroup(await contacts.createGroup(auth.accountId, body.name, body.contact_ids)) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/contact-groups/:id',
      operationId: 'getContactGroup',
      summary: 'Read a group (its members: GET /contacts?group_id=)',
      tag: CONTACTS,
      permission: 'sms:read',
      params: IdParams,
      responses: { 200: { description: 'the group', schema: GroupView } },
      errors: ['group_not_found'],
      async handle({ auth, params }) {
        return { status: 200, body: presentGroup(await contacts.getGroup(auth.accountId, params.id)) };
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/contact-groups/:id',
      operationId: 'renameContactGroup',
      summary: 'Rename a group',
      tag: CONTACTS,
      permission: 'sms:send',
      params: IdParams,
      body: GroupPatch,
      responses: { 200: { description: 'the group', schema: GroupView } },
      errors: ['group_not_found', 'validation_failed', 'conflict'],
      async handle({ auth, params, body }) {
        return { status: 200, body: presentGroup(await contacts.renameGroup(auth.accountId, params.id, body.name)) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/contact-groups/:id',
      operationId: 'deleteContactGroup',
      summary: 'Delete a group (its contacts stay)',
      tag: CONTACTS,
      permission: 'sms:send',
      params: IdParams,
      responses: { 204: { description: 'deleted' } },
      errors: ['group_not_found'],
      async handle({ auth, params }) {
        await contacts.deleteGroup(auth.accountId, params.id);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/contact-groups/:id/members',
      operationId: 'addContactGroupMembers',
      summary: 'Add contacts to a group (already members stay once)',
      tag: CONTACTS,
      permission: 'sms:send',
      params: IdParams,
      body: MembersBody,
      responses: { 200: { description: 'the group', schema: GroupView } },
      errors: ['group_not_found', 'validation_failed'],
      async handle({ auth, params, body }) {
        return { status: 200, body: presentGroup(await contacts.changeMembers(auth.accountId, params.id, body.contact_ids, 'add')) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/contact-groups/:id/members/remove',
      operationId: 'removeContactGroupMembers',
      summary: 'Remove contacts from a group',
      tag: CONTACTS,
      permission: 'sms:send',
      params: IdParams,
      body: MembersBody,
      responses: { 200: { description: 'the group', schema: GroupView } },
      errors: ['group_not_found', 'validation_failed'],
      async handle({ auth, params, body }) {
        return { status: 200, body: presentGroup(await contacts.changeMembers(auth.accountId, params.id, body.contact_ids, 'remove')) };
      },
    }),

    defineRoute({
      method: 'get',
      path: '/templates',
      operationId: 'listTemplates',
      summary: 'List the account\'s message templates, newest first',
      tag: CONTACTS,
      permission: 'sms:read',
      query: ListQuery,
      responses: { 200: { description: 'a page of templates', schema: TemplateList } },
      async handle({ auth, query }) {
        const { rows, nextCursor } = page(await contacts.listTemplates(auth.accountId, query.limit, decodeCursor(query.cursor)), query.limit);
        return { status: 200, body: { data: rows.map(presentTemplate), next_cursor: nextCursor } };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/templates',
      operationId: 'createTemplate',
      summary: 'Create a template: a name (unique in the account) and text with placeholders',
      description: 'Placeholders: {{name}}, {{first_name}} (the name\'s first word), {{last_name}} (the rest), {{phone}}, {{fields.<name>}}. Another is 400.',
      tag: CONTACTS,
      permission: 'sms:send',
      body: TemplateBody,
      responses: { 201: { description: 'the template', schema: TemplateView } },
      errors: ['validation_failed', 'conflict'],
      async handle({ auth, body }) {
        return { status: 201, body: presentTemplate(await contacts.createTemplate(auth.accountId, body.name, body.text)) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/templates/:id',
      operationId: 'getTemplate',
      summary: 'Read a template',
      tag: CONTACTS,
      permission: 'sms:read',
      params: IdParams,
      responses: { 200: { description: 'the template', schema: TemplateView } },
      errors: ['template_not_found'],
      async handle({ auth, params }) {
        return { status: 200, body: presentTemplate(await contacts.getTemplate(auth.accountId, params.id)) };
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/templates/:id',
      operationId: 'updateTemplate',
      summary: 'Rename a template or change its text',
      tag: CONTACTS,
      permission: 'sms:send',
      params: IdParams,
      body: TemplatePatch,
      responses: { 200: { description: 'the template', schema: TemplateView } },
      errors: ['template_not_found', 'validation_failed', 'conflict'],
      async handle({ auth, params, body }) {
        return { status: 200, body: presentTemplate(await contacts.updateTemplate(auth.accountId, params.id, body)) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/templates/:id',
      operationId: 'deleteTemplate',
      summary: 'Delete a template',
      tag: CONTACTS,
      permission: 'sms:send',
      params: IdParams,
      responses: { 204: { description: 'deleted' } },
      errors: ['template_not_found'],
      async handle({ auth, params }) {
        await contacts.deleteTemplate(auth.accountId, params.id);
        return { status: 204 };
      },
    }),
  ];
}
