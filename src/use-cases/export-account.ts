// Everything an account's messages hold, exported as JSON or CSV: its SMS, the SMS its phones
// received, its conversations, its address book, who last wrote to which number by email, and
// its retention setting. Streamed a page at a time (each a keyset
// query), so an account of millions of SMS costs the memory of one page, and the client starts
// reading at once.
import type { ConversationService } from '../modules/conversations/service.ts';
import type { IncomingService } from '../modules/incoming/service.ts';
import type { MessageService } from '../modules/messages/service.ts';
import { toExtendedStatus } from '../modules/messages/status.ts';
import type { RetentionService } from '../modules/retention/service.ts';
import type { Clock } from '../common/clock.ts';
import type { ContactService } from '../modules/contacts/service.ts';
import type { MailService } from '../modules/mail/service.ts';

const PAGE = 500;

export interface ExportParts {
  messages: MessageService;
  incoming: IncomingService;
  conversations: ConversationService;
  retention: RetentionService;
  contacts: ContactService;
  mail: MailService;
  clock: Clock;
}

type Redactable = { redacted_at?: Date | null };

/** One line per record, whatever the format. */
interface ExportRecord {
  record: 'sms' | 'incoming' | 'conversation' | 'contact' | 'group' | 'template' | 'mail_sender';
  /** Null for a mail sender: one per number, its phone names it. */
  id: string | null;
  /** A contact's, group's or template's. */
  name: string | null;
  phone: string;
  message: string;
  status: string | null;
  device_id: string | null;
  sim_slot: number | null;
  unread_count: number | null;
  created_at: string;
  redacted_at: string | null;
  /** A contact's. */
  tags: string[] | null;
  fields: Record<string, string> | null;
  /** A group's members' contact ids. */
  members: string[] | null;
  /** A mail sender's address: who last sent an SMS to the number by email. */
  email: string | null;
}

const NOTHING = { name: null, tags: null, fields: null, members: null, email: null };
const NO_MESSAGE = { message: '', status: null, device_id: null, sim_slot: null, unread_count: null, redacted_at: null };

/**
 * Every row the pages of `read` give, page after page, each page read by keyset after the key of
 * the last row of the one before (none for the first); a short page is the last.
 */
async function* rowsOf<T, K>(keyOf: (row: T) => K, read: (after: K | undefined) => Promise<T[]>): AsyncGenerator<T> {
  let after: K | undefined;
  for (;;) {
    const page = await read(after);
    yield* page;
    if (page.length < PAGE) return;
    after = keyOf(page[page.length - 1]!);
  }
}

/** Keysets: by time then id (SMS), by id, by number (mail senders). */
const byTime = (row: { created_at: Date; id: string }) => ({ createdAt: row.created_at, id: row.id });
const byId = (row: { id: string }) => row.id;
const byPhone = (row: { phone: string }) => row.phone;

/** A sent or received SMS: its text, its phone and slot, and when retention removed the text. */
function smsRecord(
  record: 'sms' | 'incoming',
  sms: { id: string; phone: string; message: string; device_id: string | null; sim_slot: number | null; created_at: Date },
  status: string | null,
): ExportRecord {
  return {
    ...NOTHING,
    record,
    id: sms.id,
    phone: sms.phone,
    message: sms.message,
    status,
    device_id: sms.device_id,
    sim_slot: sms.sim_slot,
    unread_count: null,
    created_at: sms.created_at.toISOString(),
    redacted_at: (sms as Redactable).redacted_at?.toISOString() ?? null,
  };
}

async function* records(parts: ExportParts, accountId: string): AsyncGenerator<ExportRecord> {
  for await (const sms of rowsOf(byTime, (after) => parts.messages.pageForExport(accountId, PAGE, after))) {
    yield smsRecord('sms', sms, toExtendedStatus(sms.status));
  }
  for await (const sms of rowsOf(byTime, (after) => parts.incoming.pageForExport(accountId, PAGE, after))) {
    yield smsRecord('incoming', sms, null);
  }
  for await (const conversation of rowsOf(byId, (after) => parts.conversations.pageForExport(accountId, after, PAGE))) {
    yield {
      ...NOTHING,
      record: 'conversation',
      id: conversation.id,
      phone: conversation.phone,
      message: '',
      status: null,
      device_id: null,
      sim_slot: null,
      unread_count: conversation.unread_count,
      created_at: conversation.created_at.toISOString(),
      redacted_at: null,
    };
  }
  for await (const contact of rowsOf(byId, (after) => parts.contacts.exportPage('contacts', accountId, after, PAGE))) {
    yield { ...NO_MESSAGE, record: 'contact', id: contact.id, name: contact.name, phone: contact.phone, tags: contact.tags, fields: contact.fields, members: null, email: null, created_at: contact.created_at.toISOString() };
  }
  for await (const group of rowsOf(byId, (after) => parts.contacts.exportPage('groups', accountId, after, PAGE))) {
    yield { ...NO_MESSAGE, record: 'group', id: group.id, name: group.name, phone: '', tags: null, fields: null, members: group.member_ids, email: null, created_at: group.created_at.toISOString() };
  }
  for await (const template of rowsOf(byId, (after) => parts.contacts.exportPage('templates', accountId, after, PAGE))) {
    yield { ...NO_MESSAGE, ...NOTHING, record: 'template', id: template.id, name: template.name, phone: '', message: template.text, created_at: template.created_at.toISOString() };
  }
  for await (const sender of rowsOf(byPhone, (after) => parts.mail.exportPage(accountId, after, PAGE))) {
    yield { ...NO_MESSAGE, ...NOTHING, record: 'mail_sender', id: null, phone: sender.phone, email: sender.sender, created_at: sender.updated_at.toISOString() };
  }
}

export const CSV_COLUMNS = ['record', 'id', 'phone', 'message', 'status', 'device_id', 'sim_slot', 'unread_count', 'created_at', 'redacted_at', 'name', 'tags', 'fields', 'members', 'email'] as const;

/**
 * A CSV field: quoted when it must be. Text a spreadsheet would run as a formula is made inert,
 * but for numbers, whose "+" is their international form.
 */
function csvField(raw: string | number | null | string[] | Record<string, string>, column: string): string {
  if (raw === null) return '';
  // Tags and members joined by ";", fields as JSON.
  const value = Array.isArray(raw) ? raw.join(';') : typeof raw === 'object' ? JSON.stringify(raw) : raw;
  let text = String(value);
  if (typeof value === 'string' && column !== 'phone' && /^[=+@\t\r-]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export async function* exportCsv(parts: ExportParts, accountId: string): AsyncGenerator<string> {
  yield `${CSV_COLUMNS.join(',')}\r\n`;
  for await (const record of records(parts, accountId)) {
    yield `${CSV_COLUMNS.map((column) => csvField(record[column], column)).join(',')}\r\n`;
  }
}

/** {"account_id", "exported_at", "retention", "mail", "records": [...]}, written as it is read. */
export async function* exportJson(parts: ExportParts, accountId: string): AsyncGenerator<string> {
  const retention = await parts.retention.get(accountId);
  const mail = await parts.mail.settings(accountId);
  const head = {
    account_id: accountId,
    exported_at: new Date(parts.clock.now()).toISOString(),
    retention: { keep_text_days: retention.keep_text_days, hash_recipients: retention.hash_recipients },
    mail: { text: mail.text, chosen: mail.chosen },
  };
  yield `${JSON.stringify(head).slice(0, -1)},"records":[`;
  let first = true;
  for await (const record of records(parts, accountId)) {
    yield `${first ? '' : ','}\n${JSON.stringify(record)}`;
    first = false;
  }
  yield '\n]}\n';
}
