// Extended API v1: devices.
import { defineRoute } from '../../http/route.ts';
import { decodeCursor, page } from '../../http/pagination.ts';
import { presentDevice, presentDeviceDetail } from './presenter.ts';
import {
  DeviceIdParams,
  DeviceList,
  DeviceListQuery,
  DeviceRegistration,
  DeviceSettingsPatch,
  DeviceDetail,
  RegisterDeviceBody,
} from './schema.ts';
import type { DeviceService } from './service.ts';

/** Where phones connect: the MQTT port as listening (port 0 picks one at start). */
export interface BrokerAddress {
  mqttPort(): number;
}

export function deviceRoutes(devices: DeviceService, broker: BrokerAddress) {
  return [
    defineRoute({
      method: 'post',
      path: '/devices',
      operationId: 'registerDevice',
      summary: 'Register a device and issue its credentials for the device channel',
      tag: 'Devices',
      permission: 'devices:write',
      body: RegisterDeviceBody,
      description:
        'broker names where the phone connects: this gateway\'s host on mqtt_port (MQTT over TCP), or its HTTP port at ' +
        'websocket_path (MQTT over WebSocket).',
      responses: { 201: { description: 'the device, its MQTT credentials (the password is shown once) and where to connect', schema: DeviceRegistration } },
      async handle({ auth, body }) {
        const { device, token } = await devices.register(auth.accountId, body.name);
        return {
          status: 201,
          body: {
            device: presentDevice(device, false),
            credentials: { client_id: device.id, username: device.id, password: token },
            // The host is the one the caller reached; behind a proxy it may differ for MQTT.
            broker: { mqtt_port: broker.mqttPort(), websocket_path: '/mqtt' },
          },
        };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/devices/:id',
      operationId: 'deleteDevice',
      summary: 'Delete a device',
      description:
        'Revokes its credentials and closes its connection. SMS its phone has not acknowledged go to another device, or fail (failed_send, reason device_deleted) when the client had named this one. SMS its phone took, and can no longer report on, end too, with reason device_deleted: failed_send if not reported sent, failed_delivery if sent (its delivery can no longer be confirmed). The SMS keep naming the device, which answers 404 from now on. ' +
        'Deleting a device the account already deleted answers 204 again and changes nothing, so a client may retry after a ' +
        'timeout; a device that was never the account\'s is a 404. Reading or changing a deleted device stays a 404.',
      tag: 'Devices',
      permission: 'devices:write',
      params: DeviceIdParams,
      responses: { 204: { description: 'deleted, by this request or an earlier one of the account' } },
      errors: ['invalid_id', 'device_not_found'],
      async handle({ auth, params }) {
        await devices.delete(auth.accountId, params.id);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/devices',
      operationId: 'listDevices',
      summary: 'List the account\'s devices, newest first',
      tag: 'Devices',
      permission: 'devices:read',
      query: DeviceListQuery,
      responses: { 200: { description: 'a page of devices', schema: DeviceList } },
      async handle({ auth, query }) {
        const rows = await devices.list(auth.accountId, query.limit, decodeCursor(query.cursor));
        const { rows: kept, nextCursor } = page(rows, query.limit);
        return {
          status: 200,
          body: { data: kept.map((row) => presentDevice(row, devices.isOnline(row.id))), next_cursor: nextCursor },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/devices/:id',
      operationId: 'getDevice',
      summary: 'Read one device',
      tag: 'Devices',
      permission: 'devices:read',
      params: DeviceIdParams,
      responses: { 200: { description: 'the device, with its queue', schema: DeviceDetail } },
      errors: ['invalid_id', 'device_not_found'],
      async handle({ auth, params }) {
        const device = await devices.get(auth.accountId, params.id);
        return { status: 200, body: presentDeviceDetail(device, devices.isOnline(device.id), await devices.queue(device)) };
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/devices/:id/settings',
      operationId: 'updateDeviceSettings',
      summary: 'Change device settings',
      description:
        'Partial update: fields not sent stay unchanged. An empty name_custom resets to the system name. ' +
        'send_window, limits and quiet_hours pace the device (README "Delivery"); paused false ends a circuit-breaker pause. ' +
        'can_send_sms false gives the tasks the phone has not acknowledged back to the pool, and fails the SMS whose client named this device.',
      tag: 'Devices',
      permission: 'devices:settings',
      params: DeviceIdParams,
      body: DeviceSettingsPatch,
      responses: { 200: { description: 'the device after the update, with its queue', schema: DeviceDetail } },
      errors: ['invalid_id', 'validation_failed', 'device_not_found'],
      async handle({ auth, params, body }) {
        const device = await devices.updateSettings(auth.accountId, params.id, body);
        return { status: 200, body: presentDeviceDetail(device, devices.isOnline(device.id), await devices.queue(device)) };
      },
    }),
  ];
}
