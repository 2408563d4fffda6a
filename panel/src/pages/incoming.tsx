// SMS the account's phones received (GET /incoming), newest first; new ones appear live.
import { useEffect, useState } from 'preact/hooks';
import { get, type Page as ApiPage } from '../api.ts';
import { useLiveEvents } from '../live.ts';
import { href } from '../router.ts';
import { SelectField } from '../ui/fields.tsx';
import { formatTime } from '../ui/format.ts';
import { Empty, Loading, Page } from '../ui/page.tsx';
import { Pager, useCursors } from '../ui/pager.tsx';
import { useLoad } from '../ui/use-load.ts';
import type { IncomingSms } from '../api/types.ts';
import { deviceOptions, useDevices } from './sms/use-devices.ts';
import { useThrottled } from '../ui/use-throttled.ts';

const LIVE_RELOAD_MS = 1000;

export function IncomingPage(_props: Record<string, string>) {
  const { devices, nameOf } = useDevices();
  const [deviceId, setDeviceId] = useState('');
  const cursors = useCursors();
  const list = useLoad(() => get<ApiPage<IncomingSms>>('/incoming', { device_id: deviceId || undefined, cursor: cursors.cursor }), [deviceId, cursors.cursor]);
  useEffect(() => cursors.reset(), [deviceId]);

  const reloadSoon = useThrottled(list.reload, LIVE_RELOAD_MS);
  useLiveEvents(
    (event) => {
      // A received SMS is the newest: it shows on the first page, if the filter lets it.
      if (event.type === 'sms.received' && cursors.page === 1 && (!deviceId || event.device_id === deviceId)) reloadSoon();
    },
    list.reload,
  );

  return (
    <Page title="Incoming SMS">
      <form class="filters card" role="search" aria-label="Filter incoming SMS" onSubmit={(event) => event.preventDefault()}>
        <SelectField label="Device" name="device_id" value={deviceId} onValue={setDeviceId} options={deviceOptions(devices, 'All devices')} />
      </form>
      <Loading data={list.data} error={list.error}>
        {(page) =>
          page.data.length === 0 ? (
            <Empty>{deviceId ? 'This device has received no SMS.' : 'No SMS received yet. Phones forward the SMS they receive while their "Forward incoming SMS" setting is on.'}</Empty>
          ) : (
            <>
              <div class="table-wrap">
                <table class="incoming-table">
                  <thead>
                    <tr>
                      <th scope="col">Received</th>
                      <th scope="col">Device</th>
                      <th scope="col">From</th>
                      <th scope="col">Message</th>
                    </tr>
                  </thead>
                  <tbody>
                    {page.data.map((sms) => (
                      <tr key={sms.id}>
                        <td class="sms-nowrap">
                          <time dateTime={sms.received_at}>{formatTime(sms.received_at)}</time>
                        </td>
                        <td>
                          <a href={href(`/devices/${sms.device_id}`)}>{nameOf(sms.device_id)}</a>
                          {sms.sim_slot !== null && <span class="muted"> SIM {sms.sim_slot + 1}</span>}
                        </td>
                        <td class="mono sms-nowrap">{sms.phone}</td>
                        <td class="sms-text-cell">{sms.message}</td>
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
