// The devices at a glance on the dashboard: online or not, battery and charging. The first few
// only, with a link to the devices page when there are more.
import type { Device } from '../../api/types.ts';
import { href } from '../../router.ts';
import { DataTable } from '../../ui/data-table.tsx';
import type { PagedList } from '../../ui/use-paged-list.ts';
import { deviceName, powerColumns } from '../devices/device-columns.tsx';

export function DevicesGlance({ devices }: { devices: PagedList<Device> }) {
  return (
    <DataTable
      list={devices}
      class="devices-table"
      empty={
        <>
          No devices yet. <a href={href('/devices')}>Devices</a>
        </>
      }
      columns={[deviceName('Device'), ...powerColumns]}
      footer={(page) =>
        page.next_cursor && (
          <p>
            <a href={href('/devices')}>All devices</a>
          </p>
        )
      }
    />
  );
}
