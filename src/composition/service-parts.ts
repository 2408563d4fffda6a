// What the gateway makes before its services and hands to the features that use it: the broker's
// ways to the phones and the cluster's parts exist first, so that no service is given a part of
// another after it is made.
import type { Metrics } from '../common/metrics.ts';
import type { CacheInvalidation } from '../cluster/invalidation.ts';
import type { DeviceLink, TransientHandOff } from '../modules/delivery/dispatcher.ts';
import type { RemotePresence } from '../modules/devices/remote-presence.ts';
import type { LiveRelay } from '../modules/live/hub.ts';
import type { OptedOutLists } from '../modules/opt-out/device-list.ts';
import type { UssdLink } from '../modules/ussd/service.ts';
import type { SmsRecord } from '../modules/messages/types.ts';

export interface ServiceParts {
  metrics?: Metrics;
  /** The broker's way to devices; none in a command, where no broker runs. */
  deviceLink?: DeviceLink;
  /** The broker's way to hand USSD requests to phones; none in a command. */
  ussdLink?: UssdLink;
  /** Tells other nodes what to drop from their caches; without it, a single node's (which tells no one). */
  invalidation?: CacheInvalidation;
  /** The accounts' suppression lists as phones get them, which the broker's settings pushes read too; made here when absent. */
  optedOutLists?: OptedOutLists;
  /** Several nodes (src/cluster/cluster.ts): what the services ask of the other nodes. */
  cluster?: { presence: RemotePresence; transients: TransientHandOff; live: LiveRelay; wakeUps: { queued(sms: SmsRecord): void } };
}
