// Sending to a group of contacts or to a tag, with a template's text (or a message) rendered per
// contact: a bulk send underneath (the create-SMS use case, once per Idempotency-Key), so pacing,
// statuses, webhooks and conversations work as for any SMS. Every recipient is checked first,
// with the rules of POST /sms and its placeholders; any problem (a placeholder a contact has no
// value for, a text too long once rendered) fails the request with a detail per recipient, and
// nothing is sent; a partial send sends to the others and answers each problem beside them.
// The dry run answers each recipient's text and segment count, or its problems.
import { AppError } from '../common/errors.ts';
import { countSegments } from '../common/sms-segments.ts';
import { countCharacters } from '../common/characters.ts';
import type { ContactService } from '../modules/contacts/service.ts';
import type { ContactRow } from '../modules/contacts/types.ts';
import { checkTemplateText, render } from '../modules/contacts/template.ts';
import type { IdempotentResult } from '../modules/idempotency/service.ts';
import type { MessageService, NewSms } from '../modules/messages/service.ts';
import { BULK_MAX_MESSAGES, MESSAGE_MAX_CHARACTERS } from '../modules/messages/schema.ts';
import type { SmsRecord } from '../modules/messages/types.ts';
import { createSms, type CreateSmsParts } from './create-sms.ts';

export interface SendToContactsParts extends CreateSmsParts {
  contacts: ContactService;
  messages: MessageService;
}

export interface ContactSend {
  groupId?: string | undefined;
  tag?: string | undefined;
  templateId?: string | undefined;
  message?: string | undefined;
  /** What POST /sms takes besides phone and message. */
  options: Omit<NewSms, 'phone' | 'message'>;
}

type FieldError = { field: string; message: string };
export type RecipientPreview =
  | { contact: ContactRow; valid: true; message: string; segments: number; encoding: 'gsm7' | 'ucs2' }
  | { contact: ContactRow; valid: false; code: string; errors: FieldError[] };

/** A recipient a partial send left out: its position among the recipients and why. */
export interface RefusedRecipient {
  index: number;
  contact: ContactRow;
  code: string;
  errors: FieldError[];
}

/** The recipients and the text, checked; a request naming neither or both of a pair is 400. */
async function resolve(parts: SendToContactsParts, accountId: string, send: ContactSend): Promise<{ recipients: ContactRow[]; text: string }> {
  if (Boolean(send.groupId) === Boolean(send.tag)) throw bad('group_id', 'name exactly one of group_id and tag');
  if (Boolean(send.templateId) === Boolean(send.message)) throw bad('template_id', 'name exactly one of template_id and message');
  const text = send.templateId ? (await parts.contacts.getTemplate(accountId, send.templateId)).text : send.message!;
  checkTemplateText(text, send.templateId ? 'template_id' : 'message');
  const recipients = await parts.contacts.recipients(accountId, send.groupId ? { groupId: send.groupId } : { tag: send.tag! }, BULK_MAX_MESSAGES + 1);
  if (recipients.length === 0) throw bad(send.groupId ? 'group_id' : 'tag', send.groupId ? 'the group has no members' : 'no contact has this tag');
  if (recipients.length > BULK_MAX_MESSAGES) throw bad(send.groupId ? 'group_id' : 'tag', `a send reaches at most ${BULK_MAX_MESSAGES} contacts; this one reaches more`);
  return { recipients, text };
}

function bad(field: string, message: string): AppError {
  return new AppError('validation_failed', message, [{ field, message }]);
}

/** Each recipient's text rendered and checked as POST /sms checks it; nothing is written. */
export async function previewContactSend(parts: SendToContactsParts, accountId: string, send: ContactSend): Promise<RecipientPreview[]> {
  const { recipients, text } = await resolve(parts, accountId, send);
  const rendered = recipients.map((contact) => {
    const result = render(text, contact);
    // The limit of POST /sms, which its schema checks: here the text exists only once rendered.
    if (result.text !== undefined && countCharacters(result.text) > MESSAGE_MAX_CHARACTERS) {
      return { contact, tooLong: `message must not exceed ${MESSAGE_MAX_CHARACTERS} characters (${countCharacters(result.text)} once rendered)` };
    }
    return { contact, ...result };
  });
  const inputs = rendered.flatMap((entry) => ('text' in entry && entry.text !== undefined ? [{ phone: entry.contact.phone, message: entry.text, ...send.options }] : []));
  const checked = await parts.messages.checkMany(accountId, inputs);
  let next = 0;
  return rendered.map((entry): RecipientPreview => {
    if ('tooLong' in entry) return { contact: entry.contact, valid: false, code: 'message_too_long', errors: [{ field: 'message', message: entry.tooLong! }] };
    if (entry.missing) {
      return {
        contact: entry.contact,
        valid: false,
        code: 'validation_failed',
        errors: entry.missing.map((name) => ({ field: 'message', message: `the contact has no value for {{${name}}}` })),
      };
    }
    const result = checked[next++]!;
    if (result.errors) return { contact: entry.contact, valid: false, code: result.code, errors: result.errors };
    const { segments, encoding } = countSegments(result.prepared.sms.message);
    return { contact: entry.contact, valid: true, message: result.prepared.sms.message, segments, encoding };
  });
}

/**
 * Sends to every recipient in one bulk send, or, if any recipient is wrong, to none (400 with a
 * detail each). `partial`: sends to the right ones and answers each wrong one beside them (400
 * as without it when none is right).
 */
export async function sendToContacts(
  parts: SendToContactsParts,
  accountId: string,
  send: ContactSend,
  idempotency: { key: string | undefined; body: unknown },
  partial = false,
): Promise<IdempotentResult> {
  let recipients: ContactRow[] = [];
  let refused: RefusedRecipient[] = [];
  return createSms(
    parts,
    accountId,
    // Another operation than the all-or-nothing send: a key used for one is refused for the other.
    { key: idempotency.key, operation: `POST /api/ext/v1/contacts/send${partial ? '?partial=true' : ''}`, body: idempotency.body },
    async () => {
      const preview = await previewContactSend(parts, accountId, send);
      const wrong = preview.filter((entry) => !entry.valid);
      if (wrong.length > 0 && (!partial || wrong.length === preview.length)) {
        throw new AppError(
          'validation_failed',
          `${wrong.length} of ${preview.length} recipients cannot be sent to; nothing was sent`,
          preview.flatMap((entry, index) =>
            entry.valid ? [] : entry.errors.map((error) => ({ field: `recipients.${index}${error.field ? `.${error.field}` : ''}`, message: `${entry.contact.phone} (contact ${entry.contact.id}): ${error.message}` })),
          ),
        );
      }
      refused = preview.flatMap((entry, index) => (entry.valid ? [] : [{ index, contact: entry.contact, code: entry.code, errors: entry.errors }]));
      const right = preview.filter((entry) => entry.valid);
      recipients = right.map((entry) => entry.contact);
      return parts.messages.prepareMany(accountId, right.map((entry) => ({ phone: entry.contact.phone, message: entry.message, ...send.options })));
    },
    (created: SmsRecord[]) => ({
      status: 201,
      body: {
        data: created.map((sms, index) => ({ contact_id: recipients[index]!.id, sms_id: sms.id, phone: sms.phone })),
        ...(partial ? { errors: refused.map(presentRefusedRecipient) } : {}),
      },
    }),
  );
}

/** A recipient left out, as the answer shows it: as a bulk send's row, with the contact's id. */
function presentRefusedRecipient(row: RefusedRecipient) {
  return {
    index: row.index,
    contact_id: row.contact.id,
    recipient: row.contact.phone,
    code: row.code,
    message: row.errors.map((error) => (error.field ? `${error.field}: ${error.message}` : error.message)).join('; '),
    errors: row.errors,
  };
}
