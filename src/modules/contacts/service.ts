// An account's contacts (unique by number, with tags and custom fields), its groups of contacts,
// and its message templates. Sending to them is a bulk send (src/use-cases/send-to-contacts.ts).
import type { Database } from '../../storage/database.ts';
import type { Clock } from '../../common/clock.ts';
import { AppError, invalidField, orNotFound, type ErrorDetail } from '../../common/errors.ts';
import { isPostgresError } from '../../storage/database.ts';
import { normalizePhone } from '../../common/phone.ts';
import type { Cursor } from '../../storage/paging.ts';
import * as contacts from './repository.ts';
import { checkTemplateText } from './template.ts';

export interface ContactInput {
  name?: string | undefined;
  phone: string;
  tags?: string[] | undefined;
  fields?: Record<string, string> | undefined;
}

/** One row of an import, checked: the contact as it would be stored and whether it is new, or what is wrong. */
export type CheckedContact =
  | { index: number; values: contacts.ContactValues; action: 'create' | 'update'; errors?: undefined }
  | { index: number; errors: { field: string; message: string }[]; values?: undefined };

/** The most contacts one import takes. */
export const IMPORT_MAX_CONTACTS = 5000;

export class ContactService {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly defaultPhoneRegion: string | undefined,
  ) {}

  private now(): Date {
    return new Date(this.clock.now());
  }

  /** A contact's values, checked (the schema already bounded lengths): the number in E.164, tags without repeats. */
  values(input: ContactInput, field = 'phone'): contacts.ContactValues {
    const phone = normalizePhone(input.phone, this.defaultPhoneRegion);
    if (!phone) throw invalidField(field, `${field} must be a valid phone number (international format such as +491701234567)`, 'invalid_phone');
    return { name: (input.name ?? '').trim(), phone, tags: uniqueTags(input.tags ?? []), fields: input.fields ?? {} };
  }

  async create(accountId: string, input: ContactInput): Promise<contacts.ContactRow> {
    try {
      return await contacts.insertContact(this.db, accountId, this.values(input), this.now());
    } catch (error) {
      if (isPostgresError(error, '23505')) throw new AppError('conflict', 'the account already has a contact with this number', [{ field: 'phone', message: 'phone is already the number of another contact of this account' }]);
      throw error;
    }
  }

  get(accountId: string, id: string): Promise<contacts.ContactRow> {
    return orNotFound(contacts.findContact(this.db, accountId, id), 'contact_not_found');
  }

  async update(accountId: string, id: string, changes: Partial<ContactInput>): Promise<contacts.ContactRow> {
    const checked: Partial<contacts.ContactValues> = {};
    if (changes.phone !== undefined) checked.phone = this.values({ phone: changes.phone }).phone;
    if (changes.name !== undefined) checked.name = changes.name.trim();
    if (changes.tags !== undefined) checked.tags = uniqueTags(changes.tags);
    if (changes.fields !== undefined) checked.fields = changes.fields;
    try {
      return await orNotFound(contacts.updateContact(this.db, accountId, id, checked, this.now()), 'contact_not_found');
    } catch (error) {
      if (isPostgresError(error, '23505')) throw new AppError('conflict', 'the account already has a contact with this number', [{ field: 'phone', message: 'phone is already the number of another contact of this account' }]);
      throw error;
    }
  }

  async delete(accountId: string, id: string): Promise<void> {
    if (!(await contacts.deleteContact(this.db, accountId, id))) throw new AppError('contact_not_found');
  }

  list(accountId: string, filter: contacts.ContactFilter, limit: number, cursor?: Cursor): Promise<contacts.ContactRow[]> {
    return contacts.listContacts(this.db, accountId, filter, limit, cursor);
  }

  /** A send's recipients: a group's members (404 if it is not the account's) or a tag's contacts; at most `limit`. */
  async recipients(accountId: string, filter: contacts.ContactFilter, limit: number): Promise<contacts.ContactRow[]> {
    if (filter.groupId) await this.getGroup(accountId, filter.groupId);
    return contacts.recipients(this.db, accountId, filter, limit);
  }

  /**
   * Checks each imported row (`read` first checks its shape, as a POST /contacts body); nothing is
   * written. Every row gets its result, whatever is wrong with the others. A number twice in one
   * import is the later row's error.
   */
  async checkImport<T = ContactInput>(accountId: string, inputs: T[], read: (input: T) => ContactInput = (input) => input as ContactInput): Promise<CheckedContact[]> {
    const seen = new Map<string, number>();
    const checked: CheckedContact[] = inputs.map((input, index) => {
      try {
        const values = this.values(read(input));
        const earlier = seen.get(values.phone);
        if (earlier !== undefined) return { index, errors: [{ field: 'phone', message: `phone is the same number as row ${earlier + 1}` }] };
        seen.set(values.phone, index);
        return { index, values, action: 'create' as const };
      } catch (error) {
        if (!(error instanceof AppError) || error.status >= 500) throw error;
        return { index, errors: (error.details ?? [{ field: '', message: error.message }]).map((detail: ErrorDetail) => ({ field: detail.field, message: detail.message })) };
      }
    });
    const existing = await contacts.existingPhones(this.db, accountId, [...seen.keys()]);
    return checked.map((entry) => (entry.values && existing.has(entry.values.phone) ? { ...entry, action: 'update' as const } : entry));
  }

  /**
   * Imports every row in one transaction (a number already there is updated), or, if any row is
   * wrong, none: the refusal names every wrong row with what the preview says of it, so a file is
   * fixed in one go rather than one error at a time.
   */
  async import<T = ContactInput>(accountId: string, inputs: T[], read?: (input: T) => ContactInput): Promise<{ created: number; updated: number }> {
    const checked = await this.checkImport(accountId, inputs, read);
    const bad = checked.filter((entry) => entry.errors);
    if (bad.length > 0) {
      throw new AppError(
        'validation_failed',
        `${bad.length} of ${inputs.length} contacts are invalid; nothing was imported`,
        bad.flatMap(({ index, errors }) => errors!.map((detail) => ({ field: `contacts.${index}${detail.field ? `.${detail.field}` : ''}`, message: `row ${index + 1}: ${detail.message}` }))),
      );
    }
    return this.db.transaction((trx) => contacts.upsertContacts(trx, accountId, checked.map((entry) => entry.values!), this.now()));
  }

  /** Export: the account's contacts, groups (with their members' ids) and templates, each by id, a page after `after`. */
  exportPage(kind: 'contacts', accountId: string, after: string | undefined, limit: number): Promise<contacts.ContactRow[]>;
  exportPage(kind: 'groups', accountId: string, after: string | undefined, limit: number): Promise<(contacts.GroupRow & { member_ids: string[] })[]>;
  exportPage(kind: 'templates', accountId: string, after: string | undefined, limit: number): Promise<contacts.TemplateRow[]>;
  exportPage(kind: 'contacts' | 'groups' | 'templates', accountId: string, after: string | undefined, limit: number): Promise<unknown[]> {
    if (kind === 'contacts') return contacts.contactsPage(this.db, accountId, after, limit);
    if (kind === 'groups') return contacts.groupsPage(this.db, accountId, after, limit);
    return contacts.templatesPage(this.db, accountId, after, limit);
  }

  // Groups

  async createGroup(accountId: string, name: string, contactIds: string[] = []): Promise<contacts.GroupWithCount> {
    const group = await this.db.transaction(async (trx) => {
      let created;
      try {
        created = await contacts.insertGroup(trx, accountId, name.trim(), this.now());
      } catch (error) {
        if (isPostgresError(error, '23505')) throw new AppError('conflict', 'the account already has a group with this name', [{ field: 'name', message: 'name is already taken by another group of this account' }]);
        throw error;
      }
      await contacts.addMembers(trx, created.id, await this.ownContacts(trx, accountId, contactIds));
      return created;
    });
    return this.getGroup(accountId, group.id);
  }

  getGroup(accountId: string, id: string): Promise<contacts.GroupWithCount> {
    return orNotFound(contacts.findGroup(this.db, accountId, id), 'group_not_found');
  }

  listGroups(accountId: string, limit: number, cursor?: Cursor): Promise<contacts.GroupWithCount[]> {
    return contacts.listGroups(this.db, accountId, limit, cursor);
  }

  async renameGroup(accountId: string, id: string, name: string): Promise<contacts.GroupWithCount> {
    try {
      if (!(await contacts.renameGroup(this.db, accountId, id, name.trim()))) throw new AppError('group_not_found');
    } catch (error) {
      if (isPostgresError(error, '23505')) throw new AppError('conflict', 'the account already has a group with this name', [{ field: 'name', message: 'name is already taken by another group of this account' }]);
      throw error;
    }
    return this.getGroup(accountId, id);
  }

  async deleteGroup(accountId: string, id: string): Promise<void> {
    if (!(await contacts.deleteGroup(this.db, accountId, id))) throw new AppError('group_not_found');
  }

  /** Adds or removes members; every id must be one of the account's contacts (400 otherwise, nothing changed). */
  async changeMembers(accountId: string, id: string, contactIds: string[], change: 'add' | 'remove'): Promise<contacts.GroupWithCount> {
    await this.getGroup(accountId, id);
    await this.db.transaction(async (trx) => {
      const own = await this.ownContacts(trx, accountId, contactIds);
      if (change === 'add') await contacts.addMembers(trx, id, own);
      else await contacts.removeMembers(trx, id, own);
    });
    return this.getGroup(accountId, id);
  }

  private async ownContacts(db: Parameters<typeof contacts.contactIdsOf>[0], accountId: string, ids: string[]): Promise<string[]> {
    const unique = [...new Set(ids.map((id) => id.toLowerCase()))];
    const own = new Set(await contacts.contactIdsOf(db, accountId, unique));
    const unknown = unique.filter((id) => !own.has(id));
    if (unknown.length > 0) {
      const details = ids.flatMap((id, index) => (own.has(id.toLowerCase()) ? [] : [{ field: `contact_ids.${index}`, message: `contact_ids.${index} names no contact of this account` }]));
      throw new AppError('validation_failed', `${unknown.length} of the contact ids are not contacts of this account`, details);
    }
    return unique;
  }

  // Templates

  async createTemplate(accountId: string, name: string, text: string): Promise<contacts.TemplateRow> {
    checkTemplateText(text, 'text');
    try {
      return await contacts.insertTemplate(this.db, accountId, name.trim(), text, this.now());
    } catch (error) {
      if (isPostgresError(error, '23505')) throw new AppError('conflict', 'the account already has a template with this name', [{ field: 'name', message: 'name is already taken by another template of this account' }]);
      throw error;
    }
  }

  getTemplate(accountId: string, id: string): Promise<contacts.TemplateRow> {
    return orNotFound(contacts.findTemplate(this.db, accountId, id), 'template_not_found');
  }

  listTemplates(accountId: string, limit: number, cursor?: Cursor): Promise<contacts.TemplateRow[]> {
    return contacts.listTemplates(this.db, accountId, limit, cursor);
  }

  async updateTemplate(accountId: string, id: string, changes: { name?: string | undefined; text?: string | undefined }): Promise<contacts.TemplateRow> {
    if (changes.text !== undefined) checkTemplateText(changes.text, 'text');
    try {
      return await orNotFound(
        contacts.updateTemplate(this.db, accountId, id, { ...(changes.name !== undefined ? { name: changes.name.trim() } : {}), ...(changes.text !== undefined ? { text: changes.text } : {}) }, this.now()),
        'template_not_found',
      );
    } catch (error) {
      if (isPostgresError(error, '23505')) throw new AppError('conflict', 'the account already has a template with this name', [{ field: 'name', message: 'name is already taken by another template of this account' }]);
      throw error;
    }
  }

  async deleteTemplate(accountId: string, id: string): Promise<void> {
    if (!(await contacts.deleteTemplate(this.db, accountId, id))) throw new AppError('template_not_found');
  }
}

/** Tags trimmed, each once, in the order given. */
function uniqueTags(tags: string[]): string[] {
  return [...new Set(tags.map((tag) => tag.trim()).filter(Boolean))];
}
