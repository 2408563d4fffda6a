// The broker's ports (broker/ports.ts) made of the gateway's services: the one place that knows
// both, so that the broker speaks MQTT only and the services know nothing of MQTT. Part of the
// composition (src/gateway.ts makes the ports once, when the broker starts).
import type { BrokerPorts } from '../broker/ports.ts';
import type { Admission } from './common/admission.ts';
import type { AuthThrottle } from './common/auth-throttle.ts';
import type { ApiKeyService } from './modules/api-keys/service.ts';
import type { CallService } from './modules/calls/service.ts';
import type { Dispatcher } from './modules/delivery/dispatcher.ts';
import type { StatusIngestor } from './modules/delivery/status-ingestor.ts';
import type { DevicePresence } from './modules/devices/presence.ts';
import type { DeviceService } from './modules/devices/service.ts';
import type { IncomingService } from './modules/incoming/service.ts';

/** The services the broker is served by. */
export interface BrokerPortSources {
  admission: Admission;
  authThrottle: AuthThrottle;
  apiKeys: ApiKeyService;
  devices: DeviceService;
  presence: DevicePresence;
  dispatcher: Dispatcher;
  statusIngestor: StatusIngestor;
  incoming: IncomingService;
  calls: CallService;
}

export function brokerPorts(services: BrokerPortSources): BrokerPorts {
  const { admission, authThrottle, apiKeys, devices, presence, dispatcher, statusIngestor, incoming, calls } = services;
  return {
    auth: {
      refusedFor: (attempt) => authThrottle.refusedFor(attempt),
      failed: (attempt) => authThrottle.failed(attempt),
      operatorKey: async (secret) => {
        const key = await apiKeys.authenticate(secret);
        return key && { accountId: key.accountId, keyId: key.keyId, mayMonitor: key.permissions.has('devices:monitor') };
      },
    },
    devices: {
      find: (deviceId) => devices.findForConnect(deviceId),
      ofAccount: (accountId) => devices.liveIds(accountId),
      heartbeat: (deviceId, values, tokenHash, batteryBefore) => devices.recordHeartbeat(deviceId, values, tokenHash, batteryBefore),
      forwardsIncoming: (accountId, deviceId) => devices.forwardsIncoming(accountId, deviceId),
      seen: (deviceId) => devices.seen(deviceId),
    },
    presence: {
      markActive: (deviceId, accountId) => presence.markActive(deviceId, accountId),
      markMovedIn: (deviceId, accountId) => presence.markMovedIn(deviceId, accountId),
      markMovedOut: (deviceId) => presence.markMovedOut(deviceId),
      markDisconnected: (deviceId) => presence.markDisconnected(deviceId),
      watch: (listener) => {
        const online = (deviceId: string) => listener(deviceId, 'online');
        const offline = (deviceId: string) => listener(deviceId, 'offline');
        const reaffirmed = (deviceId: string, isOnline: boolean) => listener(deviceId, isOnline ? 'online' : 'offline');
        presence.on('online', online);
        presence.on('offline', offline);
        presence.on('reaffirmed', reaffirmed);
        return () => {
          presence.off('online', online);
          presence.off('offline', offline);
          presence.off('reaffirmed', reaffirmed);
        };
      },
    },
    delivery: {
      deviceReady: (device) => dispatcher.deviceReady(device),
      deviceGone: (deviceId) => dispatcher.deviceGone(deviceId),
      simCardsChanged: (deviceId, simCards) => dispatcher.simCardsChanged(deviceId, simCards),
      submitReport: (report) => statusIngestor.submit(report),
    },
    inbound: {
      storeSms: (accountId, deviceId, sms) => incoming.store(accountId, deviceId, sms),
      storeCall: (accountId, deviceId, call) => calls.store(accountId, deviceId, call),
    },
    admission: { saturated: () => admission.saturated() },
  };
}
