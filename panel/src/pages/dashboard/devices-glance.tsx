// The devices at a glance on the dashboard: online or not, battery and charging.
import type { Page as ApiPage } from '../../api.ts';
import { href } from '../../router.ts';
import { OnlineBadge } from '../../ui/badge.tsx';
import { Empty } from '../../ui/page.tsx';
import { BatteryLevel, ChargingState } from '../devices/device-power.tsx';
import type { Device } from '../../api/types.ts';

export function DevicesGlance({ devices }: { devices: ApiPage<Device> }) {
  if (devices.data.length === 0) {
    return (
      <Empty>
        No devices yet. <a href={href('/devices')}>Devices</a>
      </Empty>
    );
  }
  return (
    <>
      <div class="table-wrap">
        <table class="devices-table">
          <thead>
            <tr>
              <th scope="col">Device</th>
              <th scope="col">State</th>
              <th scope="col" class="num">
                Battery
              </th>
              <th scope="col">Charging</th>
            </tr>
          </thead>
          <tbody>
            {devices.data.map((device) => (
              <tr key={device.id}>
                <td>
                  <a href={href(`/devices/${device.id}`)}>{device.name_custom}</a>
                </td>
                <td>
                  <OnlineBadge online={device.is_online} />
                </td>
                <td class="num">
                  <BatteryLevel device={device} />
                </td>
                <td>
                  <ChargingState device={device} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {devices.next_cursor && (
        <p>
          <a href={href('/devices')}>All devices</a>
        </p>
      )}
    </>
  );
}
