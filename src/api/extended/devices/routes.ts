// Extended API v1: devices.
import { resourceRoutes } from '../../../http/resource-routes.ts';
import { AppError } from '../../../common/errors.ts';
import { TrustedProxies } from '../../../common/client-address.ts';
import type { MqttAddress } from '../../../config.ts';
import { requestOrigin } from '../../../http/request-origin.ts';
import type { Context } from 'koa';
import { presentDevice, presentDeviceDetail, presentIssuedCredentials } from '../../../modules/devices/presenter.ts';
import { pairingAddress, type PairingAddress } from '../../../modules/devices/pairing-url.ts';
import {
  DeviceIdParams,
  DeviceList,
  DeviceListQuery,
  DeviceRegistration,
  DeviceSettingsPatch,
  DeviceDetail,
  DeviceQueue,
  RegisterDeviceBody,
} from '../../../modules/devices/schema.ts';
import type { Static } from '@sinclair/typebox';
import type { Database } from '../../../storage/database.ts';
import type { DeviceService } from '../../../modules/devices/service.ts';
import type { DeviceRow } from '../../../modules/devices/types.ts';
import { deleteDevice, type DeleteDeviceParts } from '../../../use-cases/delete-device.ts';
import { updateDeviceSettings, type UpdateDeviceSettingsParts } from '../../../use-cases/update-device-settings.ts';

/** What the device routes use: the devices, and the use cases that reach into delivery and calls. */
export type DeviceRouteParts = DeleteDeviceParts &
  UpdateDeviceSettingsParts & {
    db: Database;
    devices: DeviceService;
    /** What a device has to do (delivery answers). */
    tasks: { queueOf(device: DeviceRow): Promise<Static<typeof DeviceQueue>> };
  };

/** What the gateway knows of where phones reach it. */
export interface BrokerAddress {
  /** The MQTT port as listening (port 0 picks one at start). */
  mqttPort(): number;
  /** True: mqttPort() is MQTT over TLS (the gateway has TLS_CERT), and phones are paired to it with tls=1. */
  mqttTls?: boolean;
  /** The pin of the certificate served now (it changes with a reload); pairing URLs carry it with TLS. */
  tlsPin?: () => string | undefined;
  /** MQTT_PUBLIC_URL. */
  mqttPublicUrl?: MqttAddress | undefined;
  /** PUBLIC_URL. */
  publicUrl?: string | undefined;
  /** TRUSTED_PROXIES: whose X-Forwarded-Host tells the host a request came to. */
  trustedProxies?: TrustedProxies | undefined;
}

const ISSUED_DESCRIPTION =
  'broker names where the phone connects: host and port (MQTT_PUBLIC_URL when set, else PUBLIC_URL\'s host, else the host this ' +
  'request came to, on the broker\'s port), or MQTT over WebSocket at websocket_path on the HTTP port. pairing_url carries ' +
  'the same with the device id and token (smsgw://host:port?v=1&device=...&token=...[&tls=1][&api=...]), for a QR code or ' +
  '`sms-gateway-agent --pairing`. A request whose Host header is no valid host, to a gateway without PUBLIC_URL or ' +
  'MQTT_PUBLIC_URL, is a 400: the gateway would not know what address to give.';

export function deviceRoutes(parts: DeviceRouteParts, broker: BrokerAddress) {
  const { devices, tasks } = parts;
  /** Decided before anything is written, so that a request the gateway cannot answer in full changes nothing. */
  const addressFor = (ctx: Context): PairingAddress => {
    const origin = requestOrigin(ctx, broker.trustedProxies ?? TrustedProxies.none());
    const known = { mqttPublicUrl: broker.mqttPublicUrl, publicUrl: broker.publicUrl, mqttPort: broker.mqttPort(), mqttTls: broker.mqttTls, tlsPin: broker.tlsPin?.() };
    const address = pairingAddress(known, origin);
    if (!address) {
      const message = 'the Host header must name a host (a DNS name or an IP address, with an optional port); or set PUBLIC_URL or MQTT_PUBLIC_URL';
      throw new AppError('validation_failed', message, [{ field: 'Host', in: 'header', message }]);
    }
    return address;
  };
  /** A device as read and changed: with what it has to do. */
  const withQueue = async (device: DeviceRow) => ({ device, queue: await tasks.queueOf(device) });
  const presentWithQueue = ({ device, queue }: Awaited<ReturnType<typeof withQueue>>) => presentDeviceDetail(device, devices.isOnline(device.id), queue);
  const device = resourceRoutes({
    tag: 'Devices',
    read: 'devices:read',
    write: 'devices:write',
    params: DeviceIdParams,
    missing: ['invalid_id', 'device_not_found'],
    one: { description: 'the device, with its queue', schema: DeviceDetail },
    present: presentWithQueue,
  });
  return [
    device.route({
      method: 'post',
      path: '/devices',
      operationId: 'registerDevice',
      summary: 'Register a device and issue its credentials for the device channel',
      body: RegisterDeviceBody,
      description: ISSUED_DESCRIPTION,
      responses: {
        201: { description: 'the device, its MQTT credentials (the password is shown once), where to connect, and the pairing URL', schema: DeviceRegistration },
      },
      errors: ['validation_failed'],
      async handle({ auth, body, ctx }) {
        const address = addressFor(ctx);
        const { device, token } = await devices.register(auth.accountId, body.name);
        return { status: 201, body: presentIssuedCredentials(device, false, token, address, broker.mqttPort()) };
      },
    }),
    device.route({
      method: 'post',
      path: '/devices/:id/token',
      operationId: 'replaceDeviceToken',
      summary: 'Issue a new token for a device (the old one stops working)',
      description:
        'For a device whose token is lost or leaked. The new token replaces the old one at once: a CONNECT or upload with ' +
        'the old token is refused from now on (CONNACK 5, 401), and the phone\'s connection made with it is closed. The ' +
        'device keeps its id, settings and SMS. The answer is the one registration gives: the new token is shown once. ' +
        'Another account\'s device, or a deleted one, is a 404. ' +
        ISSUED_DESCRIPTION,
      params: DeviceIdParams,
      responses: {
        200: { description: 'the device, its new MQTT credentials (the password is shown once), where to connect, and the pairing URL', schema: DeviceRegistration },
      },
      errors: ['invalid_id', 'validation_failed', 'device_not_found'],
      async handle({ auth, params, ctx }) {
        const address = addressFor(ctx);
        const { device, token } = await devices.replaceToken(auth.accountId, params.id);
        return { status: 200, body: presentIssuedCredentials(device, devices.isOnline(device.id), token, address, broker.mqttPort()) };
      },
    }),
    device.remove({
      path: '/devices/:id',
      operationId: 'deleteDevice',
      summary: 'Delete a device',
      description:
        'Revokes its credentials and closes its connection. SMS its phone has not acknowledged go to another device, or fail (failed_send, reason device_deleted) when the client had named this one. SMS its phone took, and can no longer report on, end too, with reason device_deleted: failed_send if not reported sent, failed_delivery if sent (its delivery can no longer be confirmed). The SMS keep naming the device, which answers 404 from now on. ' +
        'Deleting a device the account already deleted answers 204 again and changes nothing, so a client may retry after a ' +
        'timeout; a device that was never the account\'s is a 404. Reading or changing a deleted device stays a 404.',
      done: 'deleted, by this request or an earlier one of the account',
      remove: ({ auth, params }) => deleteDevice(parts, parts.db, auth.accountId, params.id),
    }),
    device.list({
      path: '/devices',
      operationId: 'listDevices',
      summary: 'List the account\'s devices, newest first',
      query: DeviceListQuery,
      answer: { description: 'a page of devices', schema: DeviceList },
      list: ({ auth, query }, cursor) => devices.list(auth.accountId, query.limit, cursor),
      // A page shows each device without its queue.
      present: (row: DeviceRow) => presentDevice(row, devices.isOnline(row.id)),
    }),
    device.get({
      path: '/devices/:id',
      operationId: 'getDevice',
      summary: 'Read one device',
      read: async ({ auth, params }) => withQueue(await devices.get(auth.accountId, params.id)),
    }),
    // Settings take a permission of their own (devices:settings, not devices:write): a route of its own.
    device.route({
      method: 'patch',
      path: '/devices/:id/settings',
      operationId: 'updateDeviceSettings',
      summary: 'Change device settings',
      description:
        'Partial update: fields not sent stay unchanged. An empty name_custom resets to the system name. ' +
        'send_window, limits and quiet_hours pace the device (README "Delivery"); paused false ends a circuit-breaker pause. ' +
        'can_send_sms false gives the tasks the phone has not acknowledged back to the pool, and fails the SMS whose client named this device. ' +
        'sim_numbers sets the SIMs\' own numbers by slot from 0 (national ones read in DEFAULT_PHONE_REGION, stored in E.164; null clears one): ' +
        'they win over the numbers the phone reports, and sim_cards shows the result; a number that is none is a 400 naming sim_numbers.<slot>. ' +
        'group puts the device in a device group (null: none), which routes may target as "group:<name>" (docs/routes.md).',
      permission: 'devices:settings',
      params: DeviceIdParams,
      body: DeviceSettingsPatch,
      responses: { 200: { description: 'the device after the update, with its queue', schema: DeviceDetail } },
      errors: ['invalid_id', 'validation_failed', 'device_not_found'],
      async handle({ auth, params, body }) {
        return { status: 200, body: presentWithQueue(await withQueue(await updateDeviceSettings(parts, parts.db, auth.accountId, params.id, body))) };
      },
    }),
  ];
}
