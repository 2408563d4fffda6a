import { Type } from '@sinclair/typebox';

const Timestamp = Type.String({ format: 'date-time' });

export const CanarySettingsView = Type.Object(
  {
    enabled: Type.Boolean({ description: 'whether rounds run on their own, every interval_minutes; off by default' }),
    interval_minutes: Type.Integer({ minimum: 1, maximum: 1440, description: 'minutes between two scheduled rounds' }),
    timeout_seconds: Type.Integer({ minimum: 10, maximum: 3600, description: 'how long a probe waits for its receiver to report the code before it fails' }),
    next_round_at: Type.Union([Timestamp, Type.Null()], { description: 'when the next scheduled round starts; null while rounds are off' }),
    last_round_at: Type.Union([Timestamp, Type.Null()], { description: 'when the last round started (scheduled or run by hand); null: never' }),
    rounds_run: Type.Integer({ minimum: 0, description: 'rounds started so far; the round number rotates who sends to whom' }),
    updated_at: Type.Union([Timestamp, Type.Null()], { description: 'null: never set (the defaults)' }),
  },
  { additionalProperties: false },
);

export const CanarySettingsPatch = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean({ description: 'true: rounds run every interval_minutes, the first an interval from now' })),
    interval_minutes: Type.Optional(Type.Integer({ minimum: 1, maximum: 1440, description: '1-1440; the next round is then an interval from now' })),
    timeout_seconds: Type.Optional(Type.Integer({ minimum: 10, maximum: 3600, description: '10-3600; applies to rounds started from now' })),
  },
  { additionalProperties: false },
);

const SimRef = {
  device_id: Type.String({ format: 'uuid' }),
};

export const CanaryProbeView = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    sms_id: Type.String({ format: 'uuid', description: 'the canary SMS (GET /sms/{id}; listed with GET /sms?kind=canary)' }),
    sender_device_id: SimRef.device_id,
    sender_sim_slot: Type.Integer({ minimum: 0, maximum: 7 }),
    receiver_device_id: SimRef.device_id,
    receiver_sim_slot: Type.Integer({ minimum: 0, maximum: 7 }),
    code: Type.String({ description: 'what the SMS carries: "Gateway check <code>"' }),
    result: Type.Union([Type.Literal('pending'), Type.Literal('passed'), Type.Literal('failed')]),
    failure: Type.Union([Type.String(), Type.Null()], {
      description: 'why it failed: timeout, send_failed (with the SMS\'s reason after a colon), received_elsewhere; null otherwise',
    }),
    round_trip_ms: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'from the SMS\'s creation to the receiver\'s report; null unless the probe passed' }),
    created_at: Timestamp,
    deadline_at: Timestamp,
  },
  { additionalProperties: false },
);

export const SkippedSimView = Type.Object(
  {
    device_id: Type.String({ format: 'uuid' }),
    sim_slot: Type.Union([Type.Integer({ minimum: 0, maximum: 7 }), Type.Null()], { description: 'null: the whole device' }),
    reason: Type.Union(['offline', 'cannot_send', 'forwarding_off', 'no_number', 'number_shared'].map((reason) => Type.Literal(reason)), {
      description:
        'offline; cannot_send (can_send_sms off); forwarding_off (forward_incoming_sms off: the code it receives would never reach the gateway); ' +
        'no_number (neither the owner\'s sim_numbers nor its heartbeat gives the SIM\'s number); number_shared (another SIM has the same number)',
    }),
  },
  { additionalProperties: false },
);

export const CanaryRoundView = Type.Object(
  {
    round: Type.Integer({ minimum: 0, description: 'the round\'s number (0 for the first)' }),
    probes: Type.Array(CanaryProbeView, { description: 'one per eligible SIM: the canary it sends' }),
    skipped: Type.Array(SkippedSimView, { description: 'the account\'s devices and SIMs left out of the round, and why' }),
  },
  { additionalProperties: false },
);
