// The account's phones hold its suppression list (hashed, with their settings) to refuse end-to-end
// encrypted SMS to listed numbers, which only they can read (docs/encryption.md). When the list
// changes (a STOP or START received, the API, an import), once committed: every node computes it
// afresh when next asked (told over Redis), and the account's online phones get new settings now,
// without reconnecting. A phone that is offline gets them when it connects, as any settings.
//
// The node that made the change pushes to every online phone of the account, wherever its
// connection is: the broker's messages reach the other nodes' subscribers. Pushes for one account
// do not pile up: while one runs, changes ask for one more after it (a burst of STOPs, an import).
import type { Logger } from '../common/logger.ts';
import { SingleFlight } from '../common/single-flight.ts';
import type { CacheInvalidation } from '../cluster/invalidation.ts';
import type { EventListeners } from '../events/domain-events.ts';
import type { CacheEvents } from '../cluster/cache-events.ts';
import type { OptOutEvents } from '../modules/opt-out/domain-events.ts';
import type { DeviceService } from '../modules/devices/service.ts';
import type { DeviceRow } from '../modules/devices/types.ts';
import type { OptedOutLists } from '../modules/opt-out/device-list.ts';

export interface PushOptedOutListParts {
  lists: OptedOutLists;
  devices: Pick<DeviceService, 'online'>;
  /** The broker's way to phones; none in a command, where no phone is connected. */
  link: { sendSettings(device: DeviceRow): Promise<void> } | undefined;
  invalidation: CacheInvalidation;
  logger: Logger;
}

/** What to hear: the list's changes here, and news of changes on other nodes. */
export function optedOutListPushes({ lists, devices, link, invalidation, logger }: PushOptedOutListParts): EventListeners<OptOutEvents & CacheEvents> {
  const pushes = new SingleFlight<string>(
    async (accountId) => {
      if (!link) return;
      const online = await devices.online(accountId);
      await Promise.all(online.map((device) => link.sendSettings(device)));
    },
    (error, accountId) => logger.warn({ err: error, accountId }, 'opt-out list not pushed to the phones'),
  );
  return {
    'suppressions.changed': {
      committed: (changes) => {
        for (const accountId of new Set(changes.map((change) => change.accountId))) {
          lists.changed(accountId);
          invalidation.publish('opt_out_list', accountId);
          void pushes.run(accountId);
        }
      },
    },
    'cache.changed_elsewhere': { committed: ({ kind, id }) => void (kind === 'opt_out_list' && lists.changed(id)) },
    'cache.news_missed': { committed: () => lists.reset() },
  };
}
