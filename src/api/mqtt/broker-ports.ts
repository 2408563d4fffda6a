// The broker's ports (broker/ports.ts) made of the gateway's services: the one place that knows
// both, so that the broker speaks MQTT only and the services know nothing of MQTT: the phones' way
// in, as src/api/extended/ is the API's (src/gateway.ts makes the ports once, when the broker starts).
import type { BrokerPorts } from '../../../broker/ports.ts';
import type { Admission } from '../../common/admission.ts';
import type { AuthThrottle } from '../../common/auth-throttle.ts';
import type { ApiKeyService } from '../../modules/api-keys/service.ts';
import type { CallService } from '../../modules/calls/service.ts';
import type { Dispatcher } from '../../modules/delivery/dispatcher.ts';
import type { StatusIngestor } from '../../modules/delivery/status-ingestor.ts';
import type { DevicePresence } from '../../modules/devices/presence.ts';
import type { DomainEvents } from '../../events/domain-events.ts';
import type { DevicesEvents } from '../../modules/devices/domain-events.ts';
import type { DeviceService } from '../../modules/devices/service.ts';
import type { IncomingService } from '../../modules/incoming/service.ts';
import type { UssdService } from '../../modules/ussd/service.ts';
import type { MmsService } from '../../modules/mms/service.ts';

/** The services the broker is served by. */
export interface BrokerPortSources {
  admission: Admission;
  authThrottle: AuthThrottle;
  apiKeys: ApiKeyService;
  devices: DeviceService;
  presence: DevicePresence;
  /** Where presence is announced: the broker states it again as its retained messages. */
  events: DomainEvents<DevicesEvents>;
  dispatcher: Dispatcher;
  statusIngestor: StatusIngestor;
  incoming: IncomingService;
  calls: CallService;
  ussd: UssdService;
  mms: MmsService;
}

export function brokerPorts(services: BrokerPortSources): BrokerPorts {
  const { admission, authThrottle, apiKeys, devices, presence, events, dispatcher, statusIngestor, incoming, calls, ussd, mms } = services;
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
        const stops = [
          events.on('device.online', ({ deviceId }) => listener(deviceId, 'online')),
          events.on('device.offline', ({ deviceId }) => listener(deviceId, 'offline')),
          events.on('device.presence_restated', ({ deviceId, online }) => listener(deviceId, online ? 'online' : 'offline')),
        ];
        return () => stops.forEach((stop) => stop());
      },
    },
    delivery: {
      deviceReady: (device) => dispatcher.deviceReady(device),
      deviceGone: (deviceId) => dispatcher.deviceGone(deviceId),
      simCardsChanged: (deviceId, simCards) => dispatcher.simCardsChanged(deviceId, simCards),
      radioReported: (deviceId, canSend) => dispatcher.radioReported(deviceId, canSend),
      submitReport: (report) => statusIngestor.submit(report),
    },
    inbound: {
      storeSms: (accountId, deviceId, sms) => incoming.store(accountId, deviceId, sms),
      storeCall: (accountId, deviceId, call) => calls.store(accountId, deviceId, call),
      reportUssd: (deviceId, answer) => ussd.report(deviceId, answer),
      storeMms: (accountId, deviceId, received) => mms.storeReport(accountId, deviceId, received),
    },
    admission: { saturated: () => admission.saturated() },
  };
}
