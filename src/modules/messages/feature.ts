// Messages: the SMS an account sends, from the request that creates them to their last status.
import { defineFeature } from '../../composition/feature.ts';
import { gaugeReadFailed } from '../../common/metrics.ts';
import { MessageService } from './service.ts';
import { SmsWriter } from './sms-writer.ts';
import type { SmsRecord } from './types.ts';
import { IN_FLIGHT_DEVICE_SERIES, inFlightSms, waitingSms } from './queue-gauges.ts';

declare module '../../composition/feature.ts' {
  interface Services {
    messages: MessageService;
  }
}

export const messagesFeature = defineFeature({
  name: 'messages',
  provides: ['messages'],
  make: ({ db, config, clock }, need) => {
    const router = need('upstreamRouter');
    // A callback_id must name one of the account's webhooks; a recipient must not have opted out;
    // the routes say which phones may take a new SMS first.
    const firstHold = { of: (sms: SmsRecord) => router.firstHold(sms) };
    return {
      messages: new MessageService(db, need('devices'), need('dispatcher'), new SmsWriter(db), need('events'), clock, config.defaultPhoneRegion, need('webhooks'), need('optOut'), firstHold),
    };
  },
  // The queue, read from the sms rows when Prometheus scrapes: the rows are the queue, so the
  // figures stay right across restarts and with several gateway processes on one database.
  meters: ({ metrics, db }, { logger }) => {
    const failed = gaugeReadFailed(logger);
    metrics.sampledGauge(
      'sms_waiting',
      'SMS waiting for a phone to take them: queue="pool" (any device of the account) or "device" (the device the client named)',
      ['queue'],
      () => waitingSms(db),
      failed('sms_waiting'),
    );
    metrics.sampledGauge(
      'sms_in_flight',
      `tasks handed to a device and not yet sent or failed, per device (the ${IN_FLIGHT_DEVICE_SERIES} busiest; the rest as device="other")`,
      ['device'],
      () => inFlightSms(db),
      failed('sms_in_flight'),
    );
  },
  waysIn: async () => {
    const { messageRoutes } = await import('../../api/extended/messages/routes.ts');
    return { routes: (s) => messageRoutes(s) };
  },
});
