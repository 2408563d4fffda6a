// Extended API v1: a device's health (its SIMs' state, why, and its last canary results), and the
// owner's word that its SIMs are healthy again.
import { resourceRoutes } from '../../../http/resource-routes.ts';
import { DeviceIdParams } from '../../../modules/devices/schema.ts';
import { DeviceHealth, MarkHealthyBody } from '../../../modules/fleet-health/health/schema.ts';
import type { FleetHealthService } from '../../../modules/fleet-health/health/service.ts';
import type { DeviceHealthView } from '../../../modules/fleet-health/health/presenter.ts';

const HEALTH_DESCRIPTION =
  "state is degraded when a SIM is (the canary rounds found it failing to send or to receive, or over the last window_hours fewer than half of " +
  'at least 10 sends succeeded, or 3 or more failed and none succeeded) or when its radio says it cannot send; healthy when a SIM showed it works ' +
  '(an SMS sent or received, a canary passed) and nothing says otherwise; unknown without evidence either way. reasons says why, per SIM ' +
  '(sim_slot) or for the whole device (null). The figures leave out canary SMS. canary lists the last canary probes the device took part in, ' +
  'as sender or receiver, newest first (at most 20).';

export function fleetHealthRoutes(fleetHealth: FleetHealthService) {
  const health = resourceRoutes({
    tag: 'Devices',
    read: 'devices:read',
    write: 'devices:write',
    params: DeviceIdParams,
    missing: ['invalid_id', 'device_not_found'],
    one: { description: "the device's health and its SIMs'", schema: DeviceHealth },
    present: (view: DeviceHealthView) => view,
  });
  return [
    health.get({
      path: '/devices/:id/health',
      operationId: 'getDeviceHealth',
      summary: "Read a device's health and its SIMs'",
      description: HEALTH_DESCRIPTION,
      read: ({ auth, params }) => fleetHealth.healthOf(auth.accountId, params.id),
    }),
    health.act({
      method: 'post',
      path: '/devices/:id/health/mark-healthy',
      operationId: 'markDeviceHealthy',
      summary: "Mark a device's SIMs healthy again",
      description:
        'Clears the degraded state the canary rounds gave the SIM sim_slot (every SIM of the device when absent): a SIM that did not send is given ' +
        'work again at once. Each SIM that was degraded is announced (device.recovered, reason "marked healthy by the owner"). The next canary ' +
        'rounds judge it again. Answers the health after.',
      body: MarkHealthyBody,
      // Every field is optional: a POST with no body at all marks every SIM.
      bodyOptional: true,
      errors: ['validation_failed'],
      act: ({ auth, params, body }) => fleetHealth.markHealthy(auth.accountId, params.id, body.sim_slot),
    }),
  ];
}
