// The account's phones: which are online, their battery, when they were last heard from.
// Presence events update the list as phones come and go.
import { useState } from 'preact/hooks';
import { get, type Page as ApiPage } from '../api.ts';
import { useLiveEvents } from '../live.ts';
import { href } from '../router.ts';
import { useSession } from '../session.tsx';
import { OnlineBadge } from '../ui/badge.tsx';
import { Empty, Loading, Page } from '../ui/page.tsx';
import { Pager, useCursors } from '../ui/pager.tsx';
import { useLoad } from '../ui/use-load.ts';
import { BatteryLevel, ChargingState } from './devices/device-power.tsx';
import type { Device } from '../api/types.ts';
import { LastSeen } from './devices/last-seen.tsx';

export function DevicesPage() {
  const session = useSession();
  const cursors = useCursors();
  const devices = useLoad(() => get<ApiPage<Device>>('/devices', { cursor: cursors.cursor }), [cursors.cursor]);
  // When each device went offline, as the live events told this page (the API keeps no such time).
  const [offlineSince, setOfflineSince] = useState<Record<string, string>>({});
  useLiveEvents((event) => {
    if (event.type !== 'device.presence') return;
    if (!event.online) setOfflineSince((previous) => ({ ...previous, [event.id]: event.at }));
    // A reload rather than a patch: a phone coming back also reports its battery.
    devices.reload();
  }, devices.reload);

  return (
    <Page
      title="Devices"
      actions={
        session.canChange && (
          <a class="button button-primary" href={href('/devices/new')}>
            Register a device
          </a>
        )
      }
    >
      <Loading data={devices.data} error={devices.error}>
        {(page) =>
          page.data.length === 0 ? (
            <Empty>No devices yet.{session.canChange ? ' Register one to start sending.' : ''}</Empty>
          ) : (
            <>
              <div class="table-wrap">
                <table class="devices-table">
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">State</th>
                      <th scope="col" class="num">
                        Battery
                      </th>
                      <th scope="col">Charging</th>
                      <th scope="col">Last seen</th>
                      <th scope="col">SIMs</th>
                    </tr>
                  </thead>
                  <tbody>
                    {page.data.map((device) => (
                      <tr key={device.id} data-device-id={device.id}>
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
                        <td>
                          <LastSeen device={device} offlineSince={offlineSince[device.id]} />
                        </td>
                        <td>{device.sim_cards.length === 0 ? <span class="muted">none reported</span> : device.sim_cards.map((sim) => sim.name_operator || `SIM ${sim.index + 1}`).join(', ')}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <Pager cursors={cursors} next={page.next_cursor} />
            </>
          )
        }
      </Loading>
    </Page>
  );
}
