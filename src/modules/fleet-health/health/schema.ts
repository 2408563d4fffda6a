// The health of a device and its SIMs as the Extended API answers it, and the mark-healthy body.
import { Type } from '@sinclair/typebox';

const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601, UTC' });
const nullableTimestamp = (description?: string) => Type.Union([Timestamp, Type.Null()], description ? { description } : {});
const State = Type.Union([Type.Literal('healthy'), Type.Literal('degraded'), Type.Literal('unknown')], {
  description: 'degraded: something the gateway saw says it does not work; healthy: it showed that it works, and nothing says otherwise; unknown: no evidence either way in the window',
});
const Fault = Type.Union([Type.Literal('send'), Type.Literal('receive'), Type.Null()], {
  description: "which side the canary rounds found failing: send (the gateway gives the SIM no new work), receive (shown and announced only); null: not degraded by the canary rounds",
});
const ratio = (description: string) => Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], { description });

export const HealthReason = Type.Object(
  {
    code: Type.String({
      description:
        'canary_send_failed, canary_receive_failed (degraded by the canary rounds), canary_failed_as_sender, canary_failed_as_receiver, canary_undecided, ' +
        'low_send_ratio, no_successful_send, low_delivery_ratio, radio_cannot_send, or another of this form',
    }),
    detail: Type.String({ description: 'in words an owner reads' }),
    sim_slot: Type.Union([Type.Integer({ minimum: 0, maximum: 7 }), Type.Null()], { description: 'the SIM it is about; null: the whole device' }),
  },
  { additionalProperties: false },
);

export const SimHealthView = Type.Object(
  {
    sim_slot: Type.Integer({ minimum: 0, maximum: 7 }),
    phone_number: Type.Union([Type.String(), Type.Null()], { description: "the SIM's own number (the owner's, else the phone's); null while neither is known" }),
    state: State,
    fault: Fault,
    degraded_since: nullableTimestamp('when the canary rounds found it at fault; null while it is not degraded'),
    reasons: Type.Array(HealthReason),
    sent: Type.Integer({ minimum: 0, description: 'SMS the phone sent from this SIM in the window (canary SMS not counted)' }),
    failed_send: Type.Integer({ minimum: 0, description: 'SMS whose send failed' }),
    delivered: Type.Integer({ minimum: 0 }),
    undelivered: Type.Integer({ minimum: 0 }),
    send_ratio: ratio('sent / (sent + failed_send); null without either'),
    delivery_ratio: ratio('delivered / (delivered + undelivered); null without either'),
    last_sent_at: nullableTimestamp('the last SMS sent from it in the window (when its status last changed); null: none in the window'),
    last_received_at: nullableTimestamp('the last SMS it received in the window; null: none in the window'),
  },
  { additionalProperties: false },
);

export const CanaryResult = Type.Object(
  {
    round: Type.Integer({ minimum: 0 }),
    role: Type.Union([Type.Literal('sender'), Type.Literal('receiver')]),
    sim_slot: Type.Integer({ minimum: 0, maximum: 7 }),
    partner_device_id: Type.String({ format: 'uuid' }),
    partner_sim_slot: Type.Integer({ minimum: 0, maximum: 7 }),
    result: Type.Union([Type.Literal('pending'), Type.Literal('passed'), Type.Literal('failed')]),
    failure: Type.Union([Type.String(), Type.Null()], { description: 'why it failed: timeout, send_failed: <reason>, received_elsewhere; null unless it failed' }),
    round_trip_ms: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: "from the canary SMS's creation to the receiver's report; null unless it passed" }),
    at: Timestamp,
  },
  { additionalProperties: false },
);

export const DeviceHealth = Type.Object(
  {
    device_id: Type.String({ format: 'uuid' }),
    state: State,
    reasons: Type.Array(HealthReason, { description: 'every reason of the device and of its SIMs' }),
    radio: Type.Union([
      Type.Object(
        {
          can_send: Type.Boolean(),
          problem: Type.Union([Type.String(), Type.Null()], { description: 'what stops it (the agent\'s word, e.g. not_registered); null while it can send' }),
          detail: Type.Union([Type.String(), Type.Null()], { description: 'more in words; null when the agent gave none' }),
        },
        { additionalProperties: false },
      ),
      Type.Null(),
    ], { description: "what the device's agent last said of its radio; null until it says (an agent that never does)" }),
    sims: Type.Array(SimHealthView),
    canary: Type.Array(CanaryResult, { description: "the device's last canary results, newest first, at most 20" }),
    window_hours: Type.Integer({ description: 'the window the figures and reasons cover' }),
  },
  { additionalProperties: false },
);

export const MarkHealthyBody = Type.Object(
  { sim_slot: Type.Optional(Type.Integer({ minimum: 0, maximum: 7, description: 'the SIM to mark healthy; absent: every SIM of the device' })) },
  { additionalProperties: false },
);
