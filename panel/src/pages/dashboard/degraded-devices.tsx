// The devices with a SIM the canary rounds found degraded, on the dashboard: how many, and each by
// name linking to its page (where its health says why, and an owner may mark it healthy).
import type { DegradedDevice } from '../../api/types.ts';
import { href } from '../../router.ts';
import { Card } from '../../ui/card.tsx';

/** `devices`: undefined when the gateway does not say (no fleet health there). */
export function DegradedDevices({ devices }: { devices: DegradedDevice[] | undefined }) {
  return (
    <Card title="Degraded devices" class="degraded-devices">
      {devices === undefined ? (
        <p class="muted">Device health: not available.</p>
      ) : (
        <>
          <p>
            <span class="stat" data-testid="degraded-count">
              {devices.length}
            </span>{' '}
            {devices.length === 1 ? 'device has' : 'devices have'} a degraded SIM.
          </p>
          {devices.length > 0 && (
            <ul>
              {devices.map((device) => (
                <li key={device.id}>
                  <a href={href(`/devices/${device.id}`)}>{device.name}</a>
                  <span class="muted">
                    {' '}
                    ({device.degraded_sims} {device.degraded_sims === 1 ? 'SIM' : 'SIMs'})
                  </span>
                </li>
              ))}
            </ul>
          )}
          <p>
            <a href={href('/fleet')}>See the fleet</a>
          </p>
        </>
      )}
    </Card>
  );
}
