import { Type } from '@sinclair/typebox';
import { EXTENDED_STATUSES } from '../messages/status.ts';

const Count = Type.Integer({ minimum: 0 });

export const SummaryQuery = Type.Object(
  {
    since: Type.Optional(Type.String({ format: 'date-time', description: 'count SMS created at or after this time; default: today\'s UTC midnight' })),
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
      hour: Type.String({ format: 'date-time', description: 'start of the UTC hour' }),
      sent: Type.Integer({ minimum: 0, description: 'SMS that became sent in that hour' }),
      failed: Type.Integer({ minimum: 0, description: 'SMS that became failed_send or failed_delivery in that hour' }),
    }),
    { minItems: 24, maxItems: 24, description: 'the last 24 hours, oldest first; the last one is the hour under way' },
  ),
  webhooks: Type.Object({
    failing: Type.Integer({ minimum: 0, description: 'webhooks failing now (failing_since set) or disabled' }),
    ids: Type.Array(Type.String({ format: 'uuid' })),
  }),
});
