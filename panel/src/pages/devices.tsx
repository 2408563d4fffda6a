// The account's phones: which are online, their battery, when they were last heard from, the group each is in.
// Presence events update the list as phones come and go.
import { useState } from 'preact/hooks';
import type { Device } from '../api/types.ts';
import { useLiveEvents } from '../live/use-live-events.ts';
import { useSession } from '../session.tsx';
import { DataTable } from '../ui/data-table.tsx';
import { Page, PrimaryLink } from '../ui/page.tsx';
import { usePagedList } from '../ui/use-paged-list.ts';
import { deviceName, powerColumns } from './devices/device-columns.tsx';
import { LastSeen } from './devices/last-seen.tsx';

export function DevicesPage() {
  const session = useSession();
  // A reload rather than a patch: a phone coming back also reports its battery.
  const devices = usePagedList<Device>('/devices', {}, { 'device.presence': () => true });
  // When each device went offline, as the live events told this page (the API keeps no such time).
  const [offlineSince, setOfflineSince] = useState<Record<string, string>>({});
  useLiveEvents({
    'device.presence': (event) => {
      if (!event.online) setOfflineSince((previous) => ({ ...previous, [event.id]: event.at }));
    },
  });

  return (
    <Page title="Devices" actions={session.canChange && <PrimaryLink to="/devices/new">Register a device</PrimaryLink>}>
      <DataTable
        list={devices}
        class="devices-table"
        empty={`No devices yet.${session.canChange ? ' Register one to start sending.' : ''}`}
        rowAttributes={(device) => ({ 'data-device-id': device.id })}
        columns={[
          deviceName('Name'),
          ...powerColumns,
          { header: 'Last seen', cell: (device) => <LastSeen device={device} offlineSince={offlineSince[device.id]} /> },
          { header: 'Group', cell: (device) => device.group ?? <span class="muted">none</span> },
          {
            header: 'SIMs',
            cell: (device) =>
              device.sim_cards.length === 0 ? <span class="muted">none reported</span> : device.sim_cards.map((sim) => sim.name_operator || `SIM ${sim.index + 1}`).join(', '),
          },
        ]}
      />
    </Page>
  );
}
