// What the client says an SMS is, so that the account's routes can send it by that: one-time
// codes upstream at once, marketing only through the phones. The gateway does nothing else with
// it. "transactional" here is a kind of message, not the sms:send_transactional permission (which
// lets a key send past the suppression list): neither implies the other (docs/routes.md).
import { Type, type SchemaOptions } from '@sinclair/typebox';

export const SMS_CATEGORIES = ['otp', 'transactional', 'marketing'] as const;

export type SmsCategory = (typeof SMS_CATEGORIES)[number];

/** One category, as the send body, the SMS view and the routes' rules take it. */
export function smsCategorySchema(options?: SchemaOptions) {
  return Type.Union(SMS_CATEGORIES.map((category) => Type.Literal(category)), options);
}
