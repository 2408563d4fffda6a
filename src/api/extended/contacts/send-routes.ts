// Extended API v1: sending to a group of contacts or a tag, with a template rendered per contact.
import { defineRoute } from '../../../http/route.ts';
import { idempotencyKey, withReplayHeader } from '../../../http/idempotent-request.ts';
import { sendOptionsOf, wayInOf } from '../messages/send-options.ts';
import { previewContactSend, sendToContacts, type ContactSend, type SendToContactsParts } from '../../../use-cases/send-to-contacts.ts';
import { ContactSendBody, ContactSendPreview, ContactSendQuery, ContactSendResult } from '../../../modules/contacts/schema.ts';
import type { Static } from '@sinclair/typebox';
import type { RequestAuth } from '../../../http/middleware/authenticate.ts';

export function contactSendRoutes(parts: SendToContactsParts) {
  return [
    defineRoute({
      method: 'post',
      path: '/contacts/send',
      operationId: 'sendToContacts',
      idempotent: true,
      summary: 'Send to a group\'s members or a tag\'s contacts, a template (or message) rendered per contact',
      description:
        'Name one of group_id and tag, and one of template_id and message; the other fields are those of POST /sms and apply ' +
        'to every SMS. A bulk send underneath (up to 1,000 recipients, in one transaction, Idempotency-Key honoured): SMS are ' +
        'paced, reported and sent to webhooks as any other. Every recipient is checked first: a placeholder the contact has ' +
        'no value for, or a text over 170 characters once rendered, is a detail of a 400 (recipients.{index}...) and nothing ' +
        'is sent. ?partial=true sends to the recipients that can be sent to and answers, in errors, each other one\'s index, ' +
        'contact_id, recipient, error code and problems (an opted-out recipient is recipient_opted_out); 400 as above when none can be. ' +
        '?dry_run=true is the preview: each recipient\'s text with its segment count and encoding, or its errors.',
      tag: 'Contacts',
      permission: 'sms:send',
      body: ContactSendBody,
      query: ContactSendQuery,
      responses: {
        200: { description: 'dry_run=true: each recipient\'s text and segments, or errors; nothing sent', schema: ContactSendPreview },
        201: { description: 'the SMS created, one per recipient', schema: ContactSendResult },
      },
      errors: ['validation_failed', 'group_not_found', 'template_not_found', 'device_not_found', 'device_cannot_send', 'idempotency_key_reused'],
      async handle({ auth, body, query, ctx }) {
        const send = toSend(body, auth);
        if (query.dry_run) {
          const preview = await previewContactSend(parts, auth.accountId, send);
          return {
            status: 200,
            body: {
              data: preview.map((entry) =>
                entry.valid
                  ? { contact_id: entry.contact.id, valid: true as const, phone: entry.contact.phone, message: entry.message, segments: entry.segments, encoding: entry.encoding }
                  : { contact_id: entry.contact.id, valid: false as const, phone: entry.contact.phone, errors: entry.errors },
              ),
            },
          };
        }
        return withReplayHeader(await sendToContacts(parts, auth.accountId, send, { key: idempotencyKey(ctx), body }, query.partial ?? false));
      },
    }),
  ];
}

function toSend(body: Static<typeof ContactSendBody>, auth: RequestAuth): ContactSend {
  return {
    groupId: body.group_id,
    tag: body.tag,
    templateId: body.template_id,
    message: body.message,
    options: { ...sendOptionsOf(body), wayIn: wayInOf(auth) },
  };
}
