// MMS: media uploads and downloads, MMS out (their parts added to their tasks) and in (reports,
// part uploads), and the sweeps that end overdue ones and remove old media.
import { defineFeature } from '../../composition/feature.ts';
import type { DeviceLink } from '../delivery/dispatcher.ts';
import { openRecordingStore } from '../calls/recordings/open-store.ts';
import { RecordingRetention } from '../calls/recordings/retention.ts';
import { MediaService } from './media-service.ts';
import { OverdueMmsSweep } from './overdue-sweep.ts';
import { MmsService } from './service.ts';
import { MmsTaskLink } from './task-link.ts';
import { mmsWebhookListeners } from './webhook-listeners.ts';

declare module '../../composition/feature.ts' {
  interface Services {
    /** MMS media: uploads, downloads, and their files. */
    media: MediaService;
    /** MMS out (their parts, added to their tasks) and in (reports, part uploads). */
    mms: MmsService;
    /** Removes media older than MEDIA_RETENTION_DAYS, hourly. */
    mediaRetention: RecordingRetention;
    /** Ends received MMS whose parts did not all come in time, every minute. */
    overdueMms: OverdueMmsSweep;
    /** The broker's way to the phones as delivery uses it: an MMS's task gets its subject and parts on the way; none in a command. */
    taskLink: DeviceLink | undefined;
  }
}

export const mmsFeature = defineFeature({
  name: 'mms',
  provides: ['media', 'mms', 'mediaRetention', 'overdueMms', 'taskLink'],
  make: ({ db, config, clock, logger, parts }, need) => {
    // Media go to the recordings' store: the same bucket when one is set, else their own directory.
    const media = new MediaService(db, openRecordingStore({ ...config.recordings, directory: config.mms.directory }), config.mms, clock, logger.child({ component: 'media' }));
    const mms = new MmsService(db, media, need('events'), clock, logger.child({ component: 'mms' }));
    return {
      media,
      mms,
      mediaRetention: new RecordingRetention(media, logger.child({ component: 'media' })),
      overdueMms: new OverdueMmsSweep(mms, logger.child({ component: 'mms' })),
      taskLink: parts.deviceLink && new MmsTaskLink(parts.deviceLink, mms),
    };
  },
  listens: [{ register: (events, need) => void events.listenAll(mmsWebhookListeners(need('outbox'), need('webhookSender'))) }],
  runs: ({ mediaRetention, overdueMms }) => [
    { name: 'media retention', start: () => mediaRetention.start(), stop: () => mediaRetention.stop(), stopsIn: 'phones-gone' },
    { name: 'overdue MMS sweep', start: () => overdueMms.start(), stop: () => overdueMms.stop(), stopsIn: 'phones-gone' },
  ],
  waysIn: async () => {
    const { mmsRoutes } = await import('../../api/extended/mms/routes.ts');
    const { deviceMmsRoutes } = await import('../../api/extended/mms/device-routes.ts');
    return { routes: (s) => mmsRoutes(s), phoneRoutes: (s) => deviceMmsRoutes(s.media, s.mms, s.devices, s.authThrottle) };
  },
});
