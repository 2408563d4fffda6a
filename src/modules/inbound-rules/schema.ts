import { Type } from '@sinclair/typebox';
import { MESSAGE_MAX_CHARACTERS } from '../messages/schema.ts';
import { MAX_PATTERN_LENGTH } from './safe-regex.ts';
import { RULE_ACTIONS } from './types.ts';

const Timestamp = Type.String({ format: 'date-time' });
const Nullable = <T extends ReturnType<typeof Type.String> | ReturnType<typeof Type.Integer>>(schema: T, description: string) =>
  Type.Union([schema, Type.Null()], { description });

const Action = Type.Union(RULE_ACTIONS.map((action) => Type.Literal(action)), {
  description: 'auto_reply: answer reply_text through the receiving phone (at most once per sender per AUTO_REPLY_WINDOW); forward_sms: send "From <sender>: <text>" to forward_to; forward_email: mail it to email_to; tag: put tags on the received SMS',
});

const fields = {
  name: Type.String({ maxLength: 100 }),
  enabled: Type.Boolean({ description: 'a disabled rule is skipped' }),
  match_keyword: Nullable(Type.String({ minLength: 1, maxLength: 40 }), 'the text is this word or phrase, or starts with it (case, accents and punctuation folded: "Hours?" matches HOURS); null when not set: any text matches'),
  match_regex: Nullable(Type.String({ minLength: 1, maxLength: MAX_PATTERN_LENGTH }), 'a JavaScript regular expression, case-insensitive, run with a time limit (RULE_REGEX_TIMEOUT_MS); null when not set: no expression is tried'),
  match_sender: Nullable(Type.String({ minLength: 1, maxLength: 64 }), 'the sender\'s number (or short code, or name); null when not set: any sender matches'),
  match_device_id: Nullable(Type.String({ format: 'uuid' }), 'only SMS received by this device; null when not set: any device'),
  match_sim_slot: Nullable(Type.Integer({ minimum: 0, maximum: 7 }), 'only SMS received on this SIM slot; null when not set: any slot'),
  action: Action,
  reply_text: Nullable(Type.String({ minLength: 1, 'x-maxCharacters': MESSAGE_MAX_CHARACTERS }), 'auto_reply: the answer (required for that action); null when not set'),
  forward_to: Nullable(Type.String({ minLength: 1, maxLength: 64 }), 'forward_sms: the number to forward to (required for that action); null when not set'),
  email_to: Nullable(Type.String({ pattern: '^[^\\s@,;<>]{1,64}@[^\\s@,;<>]+\\.[^\\s@,;<>]+$', maxLength: 254 }), 'forward_email: the address to mail to (required for that action); null when not set'),
  tags: Type.Array(Type.String({ minLength: 1, maxLength: 40, pattern: '^[\\p{L}\\p{N}_.:-]+$' }), { maxItems: 10, description: 'tag: the tags to put on the SMS' }),
  stop_after: Type.Boolean({ description: 'once this rule matched, later rules are not tried' }),
};

export const CreateRuleBody = Type.Object({ ...Type.Partial(Type.Object(fields)).properties, action: Action }, { additionalProperties: false });

export const UpdateRuleBody = Type.Partial(Type.Object(fields), { additionalProperties: false, minProperties: 1 });

export const RuleView = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    position: Type.Integer({ description: '0-based; rules are tried in this order' }),
    ...fields,
    hits: Type.Integer({ description: 'received SMS the rule matched' }),
    regex_timeouts: Type.Integer({ description: 'matches abandoned because the regular expression ran out of time' }),
    last_hit_at: Type.Union([Timestamp, Type.Null()], { description: 'when a received SMS last matched the rule; null when none has yet (dry runs do not count)' }),
    last_timeout_at: Type.Union([Timestamp, Type.Null()], {
      description: 'when the regular expression last ran out of time on a received SMS; null when it never has (dry runs do not count)',
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { additionalProperties: false },
);

export const RuleList = Type.Object({ data: Type.Array(RuleView) });

export const RuleIdParams = Type.Object({ id: Type.String({ format: 'uuid' }) });

export const ReorderBody = Type.Object(
  { ids: Type.Array(Type.String({ format: 'uuid' }), { maxItems: 100, description: 'every rule of the account, once each, in the new order' }) },
  { additionalProperties: false },
);

export const DryRunBody = Type.Object(
  {
    phone: Type.String({ minLength: 1, maxLength: 64, description: 'the sample\'s sender' }),
    message: Type.String({ maxLength: 1600 }),
    device_id: Type.Optional(Type.String({ format: 'uuid' })),
    sim_slot: Type.Optional(Type.Integer({ minimum: 0, maximum: 7 })),
  },
  { additionalProperties: false },
);

export const DryRunResult = Type.Object({
  data: Type.Array(
    Type.Object({
      rule_id: Type.String({ format: 'uuid' }),
      name: Type.String(),
      action: Action,
      matched: Type.Boolean(),
      timed_out: Type.Boolean({ description: 'the regular expression ran out of time (counted as no match)' }),
    }),
    { description: 'every rule, in order' },
  ),
  actions: Type.Array(Type.String({ format: 'uuid' }), { description: 'the rules whose actions a real SMS would trigger, in order' }),
});

export const IncomingTagsParams = Type.Object({ id: Type.String({ format: 'uuid' }) });
export const IncomingTags = Type.Object({ tags: Type.Array(Type.String()) });
