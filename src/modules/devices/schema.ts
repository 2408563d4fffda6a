import { Type } from '@sinclair/typebox';
import { PageOf, PageQuery } from '../../http/pagination.ts';

const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601, UTC' });

// spec 2.1
export const DeviceView = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    type: Type.String({ description: 'device kind, such as android' }),
    name: Type.String({ description: 'name the device reports about itself' }),
    name_custom: Type.String({ description: 'name chosen by the user; the system name when none was chosen' }),
    is_online: Type.Boolean({ description: 'connected and active within DEVICE_OFFLINE_AFTER' }),
    is_charging: Type.Boolean(),
    battery_level: Type.Union([Type.Integer({ minimum: 0, maximum: 100 }), Type.Null()], {
      description: 'percent; null until the device first reports it',
    }),
    can_send_sms: Type.Boolean(),
    selected_sim: Type.Integer({ minimum: -2, maximum: 2 }),
    notify_low_battery: Type.Boolean(),
    forward_incoming_sms: Type.Boolean(),
    record_calls: Type.Boolean(),
    sim_cards: Type.Array(Type.Object({ index: Type.Integer({ minimum: 0 }), name_operator: Type.String() })),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { additionalProperties: false },
);

export const DeviceIdParams = Type.Object({ id: Type.String({ format: 'uuid', description: 'device id (UUID)' }) });

// spec 4.1: every field optional; fields not sent stay unchanged.
export const DeviceSettingsPatch = Type.Object(
  {
    can_send_sms: Type.Optional(Type.Boolean({ description: 'allow or forbid sending through the device' })),
    selected_sim: Type.Optional(
      Type.Integer({ minimum: -2, maximum: 2, description: '-2 system default, -1 random, 0-2 slot' }),
    ),
    notify_low_battery: Type.Optional(Type.Boolean()),
    forward_incoming_sms: Type.Optional(Type.Boolean()),
    record_calls: Type.Optional(Type.Boolean()),
    name_custom: Type.Optional(
      Type.String({ 'x-maxCharacters': 100, description: 'up to 100 characters; "" resets to the system name' }),
    ),
  },
  { additionalProperties: false },
);

export const DeviceListQuery = Type.Object({ ...PageQuery }, { additionalProperties: false });
export const DeviceList = PageOf(DeviceView);

export const RegisterDeviceBody = Type.Object(
  { name: Type.String({ minLength: 1, 'x-maxCharacters': 100, description: 'system name until the device reports its own' }) },
  { additionalProperties: false },
);

export const DeviceRegistration = Type.Object({
  device: DeviceView,
  credentials: Type.Object({
    client_id: Type.String({ description: 'MQTT client id: the device id' }),
    username: Type.String({ description: 'MQTT username: the device id' }),
    password: Type.String({ description: 'MQTT password: the device token. Shown once; only its hash is stored.' }),
  }),
});
