// A device's availability report as the Extended API answers it, and the range it is asked for.
import { Type } from '@sinclair/typebox';
import { KEEP_DAYS, MAX_RANGE_DAYS } from './service.ts';
import { OUTAGES_LISTED } from './report.ts';

const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601, UTC' });
const Seconds = (description: string) => Type.Integer({ minimum: 0, description });

export const AvailabilityQuery = Type.Object(
  {
    from: Type.Optional(Type.String({ format: 'date-time', description: `start of the range; default: a day before \`to\`. No earlier than ${KEEP_DAYS} days before now` })),
    to: Type.Optional(Type.String({ format: 'date-time', description: `end of the range (not included); default: now. After \`from\`, at most ${MAX_RANGE_DAYS} days after it` })),
  },
  { additionalProperties: false },
);

const OutageView = Type.Object(
  {
    from: Timestamp,
    to: Type.Union([Timestamp, Type.Null()], { description: 'when it came back; null: still offline' }),
    seconds: Seconds('how long it lasted within the range (so far, while it lasts)'),
  },
  { additionalProperties: false },
);

export const AvailabilityView = Type.Object(
  {
    device_id: Type.String({ format: 'uuid' }),
    from: Timestamp,
    to: Timestamp,
    online_seconds: Seconds('time online in the range'),
    offline_seconds: Seconds('time offline in the range'),
    unknown_seconds: Seconds('time before the first change the gateway recorded for the device (registered later, or recorded only since then), and the part of the range still to come'),
    availability: Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], { description: 'online / (online + offline), 4 decimals; null when neither is known' }),
    changes: Type.Integer({ minimum: 0, description: 'changes between online and offline in the range' }),
    outages: Type.Array(OutageView, { description: `its offline periods in the range, oldest first; the last ${OUTAGES_LISTED} when there were more` }),
    outages_total: Type.Integer({ minimum: 0, description: 'how many offline periods the range had' }),
  },
  { additionalProperties: false },
);
