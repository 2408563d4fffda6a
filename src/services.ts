// The composition root of the domain: every service, wired once, on one database. The HTTP
// server, the broker and the CLI all take their services from here.
import type { Config } from './config.ts';
import type { Database } from './storage/database.ts';
import type { Logger } from './shared/logger.ts';
import { GatewayEventBus } from './shared/events.ts';
import { AccountService } from './modules/accounts/service.ts';
import { ApiKeyService } from './modules/api-keys/service.ts';
import { DevicePresence } from './modules/devices/presence.ts';
import { DeviceService } from './modules/devices/service.ts';
import { DevicePicker } from './modules/messages/device-picker.ts';
import { MessageService } from './modules/messages/service.ts';

export interface Services {
  db: Database;
  events: GatewayEventBus;
  presence: DevicePresence;
  accounts: AccountService;
  apiKeys: ApiKeyService;
  devices: DeviceService;
  messages: MessageService;
}

export function createServices(config: Config, db: Database, logger: Logger): Services {
  const events = new GatewayEventBus((error, event) => logger.error({ err: error, event }, 'event listener failed'));
  const presence = new DevicePresence(config.deviceOfflineAfterMs);
  const devices = new DeviceService(db, presence, events);
  return {
    db,
    events,
    presence,
    accounts: new AccountService(db),
    apiKeys: new ApiKeyService(db, logger.child({ component: 'api-keys' })),
    devices,
    messages: new MessageService(db, devices, new DevicePicker(presence), events, config.defaultPhoneRegion),
  };
}
