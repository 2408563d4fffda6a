import { Type } from '@sinclair/typebox';
import { PageOf, PageQuery } from '../../common/page-schema.ts';
import { EXTENDED_STATUSES } from '../messages/status.ts';

const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601, UTC' });

export const ThreadMessageView = Type.Object(
  {
    id: Type.String({
      format: 'uuid',
      description: 'the SMS id (GET /sms/{id}) or the received SMS id (GET /incoming); for an MMS, GET /mms/{id} or, received, GET /mms/incoming/{id}',
    }),
    direction: Type.Union([Type.Literal('outgoing'), Type.Literal('incoming')]),
    kind: Type.Optional(
      Type.Union([Type.Literal('mms'), Type.Literal('data')], {
        description:
          'present only on an MMS, either way, whose message is its text (a received one\'s subject when it has no text), ' +
          'and on a data SMS sent (POST /sms/data), whose message is empty: its payload and port are in GET /sms/{id}',
      }),
    ),
    message: Type.String({ description: 'empty once the account\'s retention redacted it' }),
    redacted: Type.Boolean({ description: 'true: the text was removed by the account\'s retention setting' }),
    status: Type.Union([...EXTENDED_STATUSES.map((status) => Type.Literal(status)), Type.Null()], {
      description: 'an outgoing SMS\'s status; null for a received one',
    }),
    device_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
      description: 'the phone that sent or received it; null for an outgoing SMS no phone has taken yet',
    }),
    sim_slot: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
      description:
        'the SIM slot it went out or came in on: for an outgoing SMS the slot the phone reported sending from, else the slot asked for; ' +
        'null when not known: an outgoing SMS that asked for no particular slot and whose phone has not reported the slot it sent from, ' +
        'or a received SMS whose phone did not report one',
    }),
    at: Type.String({ format: 'date-time', description: 'when the gateway stored it' }),
  },
  { additionalProperties: false },
);

export const ConversationView = Type.Object(
  {
    phone: Type.String({ description: 'the remote number, E.164 (or as the phone reported a sender that is no number); "hmac:..." once the account\'s retention hashed it' }),
    last_activity_at: Timestamp,
    unread_count: Type.Integer({ minimum: 0, description: 'received SMS and MMS since the conversation was last marked read' }),
    read_at: Type.Union([Timestamp, Type.Null()], { description: 'when it was last marked read; null: never' }),
    last_message: Type.Union([ThreadMessageView, Type.Null()], { description: 'the newest message either way; null if it was deleted' }),
    device_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
      description: 'the phone a reply should go through: that of the newest message that has one (POST /sms device_id); null: none yet',
    }),
    sim_slot: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
      description: 'the SIM slot of that message, when known (POST /sms sim_slot); null: the phone\'s settings decide',
    }),
  },
  { additionalProperties: false },
);

export const ConversationListQuery = Type.Object(
  { ...PageQuery, unread: Type.Optional(Type.Boolean({ description: 'true: only conversations with unread SMS' })) },
  { additionalProperties: false },
);

export const ConversationPhoneParams = Type.Object({
  phone: Type.String({ minLength: 1, maxLength: 80, description: 'the remote number (URL-encode "+" as %2B or leave it), as the conversation shows it' }),
});

export const ThreadQuery = Type.Object({ ...PageQuery }, { additionalProperties: false });

export const ConversationList = PageOf(ConversationView);
export const ThreadPage = PageOf(ThreadMessageView);
