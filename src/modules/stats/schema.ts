import { Type } from '@sinclair/typebox';
import { EXTENDED_STATUSES } from '../messages/status.ts';

const Count = Type.Integer({ minimum: 0 });

export const SummaryQuery = Type.Object(
  {
    since: Type.Optional(Type.String({ format: 'date-time', description: 'count SMS created at or after this time (a local midnight: hourly then follows that zone\'s hours); default: today\'s UTC midnight' })),
  },
  { additionalProperties: false },
);

export const SummaryView = Type.Object({
  devices: Type.Union(
    [
      Type.Object({
        online: Count,
        offline: Type.Integer({ minimum: 0, description: 'devices not deleted and not online' }),
      }),
      Type.Null(),
    ],
    { description: 'null unless the caller holds devices:read' },
  ),
  sms: Type.Object({
    since: Type.String({ format: 'date-time' }),
    by_status: Type.Object(
      Object.fromEntries(EXTENDED_STATUSES.map((status) => [status, Count])),
      { description: 'SMS created since `since`, by their status now (Extended statuses)' },
    ),
  }),
  hourly: Type.Array(
    Type.Object({
      hour: Type.String({ format: 'date-time', description: 'start of the hour: on the minute and second of `since` within its hour (a UTC hour by default)' }),
      sent: Type.Integer({ minimum: 0, description: 'SMS that became sent in that hour' }),
      failed: Type.Integer({ minimum: 0, description: 'SMS that became failed_send or failed_delivery in that hour' }),
    }),
    { minItems: 24, maxItems: 24, description: 'the last 24 hours, oldest first; the last one is the hour under way' },
  ),
  webhooks: Type.Object({
    failing: Type.Integer({ minimum: 0, description: 'webhooks failing now (failing_since set) or disabled' }),
    ids: Type.Array(Type.String({ format: 'uuid' })),
  }),
  degraded_devices: Type.Union(
    [
      Type.Array(
        Type.Object({
          id: Type.String({ format: 'uuid' }),
          name: Type.String(),
          degraded_sims: Type.Integer({ minimum: 1 }),
        }),
      ),
      Type.Null(),
    ],
    { description: 'devices not deleted with at least one SIM the canary rounds found degraded; null unless the caller holds devices:read' },
  ),
});

export const DeviceReportQuery = Type.Object(
  {
    from: Type.Optional(Type.String({ format: 'date-time', description: 'count SMS and canaries created at or after this time; default: 7 days before `to`' })),
    to: Type.Optional(Type.String({ format: 'date-time', description: 'and before this time; default: now. After `from`, at most 366 days after it' })),
    format: Type.Optional(
      Type.Union([Type.Literal('json'), Type.Literal('csv')], {
        description: 'json or csv; without it, text/csv when the Accept header prefers it to JSON, else json',
      }),
    ),
  },
  { additionalProperties: false },
);

const milliseconds = (description: string) => Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description });
const ratio = (description: string) => Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], { description });

const figures = {
  sent: Type.Integer({ minimum: 0, description: 'SMS its phone sent (now sent, delivered, undelivered or failed_delivery)' }),
  failed_send: Type.Integer({
    minimum: 0,
    description: 'SMS handed to it that its phone failed to send (a failed_send the gateway decided: cancelled, expired, device switched off or deleted, recipient opted out, is not counted)',
  }),
  delivered: Count,
  undelivered: Count,
  delivery_ratio: ratio('delivered / (delivered + undelivered); null when neither'),
  to_sent_median_ms: milliseconds('median time from hand-out (the last, when a send was retried) to the phone reporting sent; null when none'),
  to_sent_p95_ms: milliseconds('95th percentile of the same; null when none'),
  to_delivered_median_ms: milliseconds('median time from hand-out to the delivery report; null when none'),
  to_delivered_p95_ms: milliseconds('95th percentile of the same; null when none'),
  canary_ended: Type.Integer({ minimum: 0, description: 'canaries it sent whose probe ended (passed or failed)' }),
  canary_passed: Count,
  canary_pass_rate: ratio('canary_passed / canary_ended; null when none ended'),
};

export const DeviceReportView = Type.Object({
  from: Type.String({ format: 'date-time' }),
  to: Type.String({ format: 'date-time' }),
  devices: Type.Array(
    Type.Object({
      device_id: Type.String({ format: 'uuid' }),
      name: Type.String(),
      deleted: Type.Boolean({ description: 'a deleted device is listed only when it has figures in the range' }),
      ...figures,
      sims: Type.Array(
        Type.Object({
          sim_slot: Type.Union([Type.Integer({ minimum: 0, maximum: 7 }), Type.Null()], { description: 'null: SMS whose SIM was never known' }),
          ...figures,
        }),
        { description: 'the SIMs with any figure in the range, by slot' },
      ),
    }),
    { description: 'the devices not deleted (oldest first), and deleted ones with figures' },
  ),
});

export const UpstreamReportQuery = Type.Object(
  {
    from: Type.Optional(Type.String({ format: 'date-time', description: 'count SMS created at or after this time; default: 7 days before `to`' })),
    to: Type.Optional(Type.String({ format: 'date-time', description: 'and before this time; default: now. After `from`, at most 366 days after it' })),
    format: DeviceReportQuery.properties.format,
  },
  { additionalProperties: false },
);

const routeFigures = {
  handed_over: Type.Integer({
    minimum: 0,
    description: 'SMS handed to it: for an upstream, those it accepted, refused, or never answered (the watchdog\'s upstream_outcome_unknown); for the phones, those a phone took that ended, as in the device report',
  }),
  sent: Type.Integer({ minimum: 0, description: 'of those, SMS it took: the upstream accepted it, the phone sent it (now sent, delivered, undelivered or failed_delivery)' }),
  failed_send: Type.Integer({ minimum: 0, description: 'handed over and not taken: refused by the upstream or never answered; for the phones, a failed_send of the phone\'s' }),
  delivered: Count,
  undelivered: Count,
  failed_delivery: Count,
  delivery_ratio: ratio('delivered / (delivered + undelivered + failed_delivery); null when none of them'),
};

export const UpstreamReportView = Type.Object({
  from: Type.String({ format: 'date-time' }),
  to: Type.String({ format: 'date-time' }),
  phones: Type.Object(routeFigures, { description: "the account's phones as a whole, for comparison (no segments or cost: the gateway knows no price for them)" }),
  upstreams: Type.Array(
    Type.Object({
      upstream_id: Type.String({ format: 'uuid' }),
      name: Type.String(),
      kind: Type.Union([Type.Literal('smpp'), Type.Literal('twilio')]),
      ...routeFigures,
      segments: Type.Integer({ minimum: 0, description: 'the segments of the SMS it took, as the link counted them' }),
      cost: Type.Number({
        minimum: 0,
        description: "what the SMS it took cost, in the account's currency: each SMS at the upstream's price when it was handed over (a later change of price does not change it); 0 without a price",
      }),
    }),
    { description: "the account's upstreams, oldest first, each listed with or without figures (a deleted upstream's figures went with it)" },
  ),
});
