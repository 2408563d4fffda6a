import { Type } from '@sinclair/typebox';

const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601, UTC' });

export const SmsAttemptsParams = Type.Object({ id: Type.String({ format: 'uuid', description: 'SMS id (UUID)' }) });

export const SmsAttempt = Type.Object(
  {
    attempt: Type.Integer({ minimum: 1, description: '1 for the first; a send failed with a retryable error is tried again, up to max_send_attempts' }),
    device_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], { description: 'the device that tried it; null when an upstream tried it (upstream_id), or when it is not known' }),
    upstream_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
      description: 'the upstream a route handed it to (GET /upstreams/{id}; docs/routes.md); null when a phone tried it',
    }),
    sim_slot: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'the SIM slot it was tried from; null when neither the task nor the phone named one' }),
    started_at: Timestamp,
    ended_at: Type.Union([Timestamp, Type.Null()], { description: 'null while the attempt is under way' }),
    result: Type.Union([Type.Literal('sending'), Type.Literal('sent'), Type.Literal('failed')]),
    error_code: Type.Union([Type.String(), Type.Null()], { description: 'the phone\'s machine-readable reason of a failure (docs/delivery.md); null when it did not fail or the phone gave none' }),
    error: Type.Union([Type.String(), Type.Null()], { description: 'the phone\'s own words about a failure; null when it did not fail or the phone said nothing' }),
    retried: Type.Boolean({ description: 'the failure was not final: the SMS went round again (another SIM or phone)' }),
  },
  { additionalProperties: false },
);

export const SmsAttempts = Type.Object({ data: Type.Array(SmsAttempt) }, { additionalProperties: false });

/** The account's delivery choices (docs/delivery.md, "Sticky sender"). */
export const DeliverySettingsView = Type.Object(
  {
    sticky_sender: Type.Boolean({
      description:
        'true: a recipient keeps getting SMS from the SIM (device and slot) it last got one from, so that its replies come back ' +
        'to the same number, as long as that SIM can send (not degraded or paused, its device live, online or offline for less than ' +
        'FAILOVER_AFTER, and not at a SIM limit); otherwise any device takes it, and the recipient keeps the new SIM. false (the default): any device',
    }),
  },
  { additionalProperties: false },
);

export const DeliverySettingsPatch = Type.Object(
  { sticky_sender: Type.Optional(DeliverySettingsView.properties.sticky_sender) },
  { additionalProperties: false },
);
