// Extended API v1: the account's contacts, groups of contacts and message templates.
import type { Static } from '@sinclair/typebox';
import { resourceRoutes } from '../../../http/resource-routes.ts';
import { AppError } from '../../../common/errors.ts';
import { check, compile } from '../../../http/validation.ts';
import { presentCheckedContact, presentContact, presentGroup, presentTemplate } from '../../../modules/contacts/presenter.ts';
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
  ImportEnvelope,
  ImportQuery,
  ListQuery,
  MembersBody,
  TemplateBody,
  TemplateList,
  TemplatePatch,
  TemplateView,
} from '../../../modules/contacts/schema.ts';
import type { ContactInput, ContactService } from '../../../modules/contacts/service.ts';

const IMPORT_BODY_LIMIT = 4 * 1024 * 1024;
const validateImportRow = compile(ContactBody, 'body');

/** One row of an import, checked as a POST /contacts body; a refusal names fields within the row ("" for the row itself). */
function readImportRow(row: unknown): ContactInput {
  if (typeof row !== 'object' || row === null || Array.isArray(row)) {
    const message = 'a contact is an object with phone, and optionally name, tags and fields';
    throw new AppError('validation_failed', message, [{ field: '', message }]);
  }
  check(validateImportRow, row, 'body');
  return row as Static<typeof ContactBody>;
}

export function contactRoutes(contacts: ContactService) {
  // Contacts, groups and templates share a tag and their ids, and are read with sms:read and
  // changed with sms:send: they serve sending.
  const shared = { tag: 'Contacts', read: 'sms:read', write: 'sms:send', params: IdParams } as const;
  const contact = resourceRoutes({
    ...shared,
    missing: ['contact_not_found'],
    one: { description: 'the contact', schema: ContactView },
    present: presentContact,
  });
  const group = resourceRoutes({
    ...shared,
    missing: ['group_not_found'],
    one: { description: 'the group', schema: GroupView },
    present: presentGroup,
  });
  const template = resourceRoutes({
    ...shared,
    missing: ['template_not_found'],
    one: { description: 'the template', schema: TemplateView },
    present: presentTemplate,
  });
  return [
    contact.list({
      path: '/contacts',
      operationId: 'listContacts',
      summary: 'List the account\'s contacts, newest first; tag or group_id narrows the list',
      query: ContactListQuery,
      answer: { description: 'a page of contacts', schema: ContactList },
      list: ({ auth, query }, cursor) =>
        contacts.list(auth.accountId, { ...(query.tag ? { tag: query.tag } : {}), ...(query.group_id ? { groupId: query.group_id } : {}) }, query.limit, cursor),
    }),
    contact.create({
      path: '/contacts',
      operationId: 'createContact',
      summary: 'Add a contact: a number (unique in the account), a name, tags and custom fields',
      body: ContactBody,
      errors: ['validation_failed', 'invalid_phone', 'conflict'],
      create: ({ auth, body }) => contacts.create(auth.accountId, body),
    }),
    contact.route({
      method: 'post',
      path: '/contacts/import',
      operationId: 'importContacts',
      summary: 'Import contacts from CSV (or JSON); ?dry_run=true previews each row',
      description:
        'Takes text/csv with a header row (phone required; name; tags separated by ";"; every other column a custom field of ' +
        'that name, or JSON {"contacts": [...]} with the fields of POST /contacts. A number already a contact is updated (name, ' +
        'tags and fields replaced). Every row is checked on its own first: if any is wrong the answer is 400 with a detail for ' +
        'each error of every bad row (contacts.{index}...) and nothing is written; otherwise all are written in one transaction. ' +
        'With ?dry_run=true the answer is 200 with each row\'s result (create, update, or its errors: a bad phone, tag, name or ' +
        'field is that row\'s error, never a 400 for the whole file) and nothing is written. A file that cannot be read as CSV ' +
        `(its header, a row of the wrong width, a cell past 512 characters) is a 400 naming where. At most ${MAX_IMPORT_COLUMNS} columns.`,
      body: ImportEnvelope,
      documentedBody: ImportBody,
      query: ImportQuery,
      csv: importBodyFromCsv,
      bodyLimitBytes: IMPORT_BODY_LIMIT,
      responses: {
        200: { description: 'dry_run=true: each row\'s result; otherwise how many were created and updated', schema: ImportDryRun },
        201: { description: 'imported', schema: ImportDone },
      },
      errors: ['validation_failed', 'payload_too_large'],
      async handle({ auth, body, query }) {
        if (query.dry_run) return { status: 200, body: { data: (await contacts.checkImport(auth.accountId, body.contacts, readImportRow)).map(presentCheckedContact) } };
        return { status: 201, body: await contacts.import(auth.accountId, body.contacts, readImportRow) };
      },
    }),
    contact.get({
      path: '/contacts/:id',
      operationId: 'getContact',
      summary: 'Read a contact',
      read: ({ auth, params }) => contacts.get(auth.accountId, params.id),
    }),
    contact.update({
      path: '/contacts/:id',
      operationId: 'updateContact',
      summary: 'Change a contact (tags and fields are replaced whole)',
      body: ContactPatch,
      answer: 'the contact as changed',
      errors: ['validation_failed', 'invalid_phone', 'conflict'],
      update: ({ auth, params, body }) => contacts.update(auth.accountId, params.id, body),
    }),
    contact.remove({
      path: '/contacts/:id',
      operationId: 'deleteContact',
      summary: 'Delete a contact (it leaves its groups; its SMS stay)',
      remove: ({ auth, params }) => contacts.delete(auth.accountId, params.id),
    }),

    group.list({
      path: '/contact-groups',
      operationId: 'listContactGroups',
      summary: 'List the account\'s contact groups with their member counts, newest first',
      query: ListQuery,
      answer: { description: 'a page of groups', schema: GroupList },
      list: ({ auth, query }, cursor) => contacts.listGroups(auth.accountId, query.limit, cursor),
    }),
    group.create({
      path: '/contact-groups',
      operationId: 'createContactGroup',
      summary: 'Create a group (a name unique in the account), optionally with members',
      body: GroupBody,
      errors: ['validation_failed', 'conflict'],
      create: ({ auth, body }) => contacts.createGroup(auth.accountId, body.name, body.contact_ids),
    }),
    group.get({
      path: '/contact-groups/:id',
      operationId: 'getContactGroup',
      summary: 'Read a group (its members: GET /contacts?group_id=)',
      read: ({ auth, params }) => contacts.getGroup(auth.accountId, params.id),
    }),
    group.update({
      path: '/contact-groups/:id',
      operationId: 'renameContactGroup',
      summary: 'Rename a group',
      body: GroupPatch,
      errors: ['validation_failed', 'conflict'],
      update: ({ auth, params, body }) => contacts.renameGroup(auth.accountId, params.id, body.name),
    }),
    group.remove({
      path: '/contact-groups/:id',
      operationId: 'deleteContactGroup',
      summary: 'Delete a group (its contacts stay)',
      remove: ({ auth, params }) => contacts.deleteGroup(auth.accountId, params.id),
    }),
    group.act({
      method: 'post',
      path: '/contact-groups/:id/members',
      operationId: 'addContactGroupMembers',
      summary: 'Add contacts to a group (already members stay once)',
      body: MembersBody,
      errors: ['validation_failed'],
      act: ({ auth, params, body }) => contacts.changeMembers(auth.accountId, params.id, body.contact_ids, 'add'),
    }),
    group.act({
      method: 'post',
      path: '/contact-groups/:id/members/remove',
      operationId: 'removeContactGroupMembers',
      summary: 'Remove contacts from a group',
      body: MembersBody,
      errors: ['validation_failed'],
      act: ({ auth, params, body }) => contacts.changeMembers(auth.accountId, params.id, body.contact_ids, 'remove'),
    }),

    template.list({
      path: '/templates',
      operationId: 'listTemplates',
      summary: 'List the account\'s message templates, newest first',
      query: ListQuery,
      answer: { description: 'a page of templates', schema: TemplateList },
      list: ({ auth, query }, cursor) => contacts.listTemplates(auth.accountId, query.limit, cursor),
    }),
    template.create({
      path: '/templates',
      operationId: 'createTemplate',
      summary: 'Create a template: a name (unique in the account) and text with placeholders',
      description: 'Placeholders: {{name}}, {{first_name}} (the name\'s first word), {{last_name}} (the rest), {{phone}}, {{fields.<name>}}. Another is 400.',
      body: TemplateBody,
      errors: ['validation_failed', 'conflict'],
      create: ({ auth, body }) => contacts.createTemplate(auth.accountId, body.name, body.text),
    }),
    template.get({
      path: '/templates/:id',
      operationId: 'getTemplate',
      summary: 'Read a template',
      read: ({ auth, params }) => contacts.getTemplate(auth.accountId, params.id),
    }),
    template.update({
      path: '/templates/:id',
      operationId: 'updateTemplate',
      summary: 'Rename a template or change its text',
      body: TemplatePatch,
      errors: ['validation_failed', 'conflict'],
      update: ({ auth, params, body }) => contacts.updateTemplate(auth.accountId, params.id, body),
    }),
    template.remove({
      path: '/templates/:id',
      operationId: 'deleteTemplate',
      summary: 'Delete a template',
      remove: ({ auth, params }) => contacts.deleteTemplate(auth.accountId, params.id),
    }),
  ];
}
