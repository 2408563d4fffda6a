// Calls: the call log the phones report, and the recordings they upload.
import { defineFeature } from '../../composition/feature.ts';
import { openRecordingStore } from './recordings/open-store.ts';
import { RecordingRetention } from './recordings/retention.ts';
import { RecordingService } from './recordings/service.ts';
import { CallService } from './service.ts';
import { callWebhookListeners } from './webhook-listeners.ts';

declare module '../../composition/feature.ts' {
  interface Services {
    /** The call log the phones report. */
    calls: CallService;
    /** Call recordings: uploads, downloads, and their files. */
    recordings: RecordingService;
    /** Removes recordings older than RECORDINGS_RETENTION_DAYS, hourly. */
    recordingRetention: RecordingRetention;
  }
}

export const callsFeature = defineFeature({
  name: 'calls',
  provides: ['calls', 'recordings', 'recordingRetention'],
  make: ({ db, config, clock, logger }, need) => {
    const events = need('events');
    const recordings = new RecordingService(db, openRecordingStore(config.recordings), events, config.recordings, clock, logger.child({ component: 'recordings' }));
    return {
      calls: new CallService(db, events, config.defaultPhoneRegion),
      recordings,
      recordingRetention: new RecordingRetention(recordings, logger.child({ component: 'recordings' })),
    };
  },
  listens: [
    {
      register: (events, need) => {
        const recordings = need('recordings');
        // A deleted call (or phone) takes its recording's file along; its row went with the call.
        events.on('call.deleted', ({ recording }) => recordings.removeFile(recording));
        events.listenAll(callWebhookListeners(need('outbox'), need('webhookSender')));
      },
    },
  ],
  runs: ({ recordingRetention }) => [{ name: 'recording retention', start: () => recordingRetention.start(), stop: () => recordingRetention.stop(), stopsIn: 'phones-gone' }],
  waysIn: async () => {
    const { callRoutes } = await import('../../api/extended/calls/routes.ts');
    const { recordingRoutes, deviceRecordingRoutes } = await import('../../api/extended/calls/recordings/routes.ts');
    return {
      routes: (s) => [...callRoutes(s.calls), ...recordingRoutes(s.recordings)],
      phoneRoutes: (s) => deviceRecordingRoutes(s.recordings, s.devices, s.authThrottle),
    };
  },
});
