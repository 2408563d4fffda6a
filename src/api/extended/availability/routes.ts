// Extended API v1: how long a device was online over a range, with its outages.
import { defineRoute } from '../../../http/route.ts';
import { DeviceIdParams } from '../../../modules/devices/schema.ts';
import { presentAvailability } from '../../../modules/availability/presenter.ts';
import { AvailabilityQuery, AvailabilityView } from '../../../modules/availability/schema.ts';
import type { AvailabilityService } from '../../../modules/availability/service.ts';

export function availabilityRoutes(availability: AvailabilityService) {
  return [
    defineRoute({
      method: 'get',
      path: '/devices/:id/availability',
      operationId: 'getDeviceAvailability',
      summary: 'How long a device was online over a range, and its outages',
      description:
        'Online is the gateway\'s view: the phone holds its MQTT connection and showed activity within DEVICE_OFFLINE_AFTER. Counted from ' +
        'the changes between online and offline the gateway recorded as it announced them (device.online, device.offline); changes are kept ' +
        '90 days. Time before the first recorded change, and the part of the range still to come, is unknown and left out of availability. ' +
        'Default range: the last 24 hours; at most 31 days.',
      tag: 'Devices',
      permission: 'devices:read',
      params: DeviceIdParams,
      query: AvailabilityQuery,
      responses: { 200: { description: "the device's availability", schema: AvailabilityView } },
      errors: ['validation_failed', 'invalid_id', 'device_not_found'],
      async handle({ auth, params, query }) {
        const report = await availability.reportOf(auth.accountId, params.id, {
          ...(query.from ? { from: new Date(query.from) } : {}),
          ...(query.to ? { to: new Date(query.to) } : {}),
        });
        return { status: 200, body: presentAvailability(params.id.toLowerCase(), report) };
      },
    }),
  ];
}
