// SMS the account's phones received (GET /incoming), newest first; new ones appear live.
import { useState } from 'preact/hooks';
import type { IncomingMms, IncomingSms } from '../api/types.ts';
import { MmsParts } from './mms/parts.tsx';
import { SelectField } from '../ui/fields.tsx';
import { DataTable } from '../ui/data-table.tsx';
import { Page } from '../ui/page.tsx';
import { usePagedList } from '../ui/use-paged-list.ts';
import { deviceColumn, timeColumn } from './devices/reported-columns.tsx';
import { deviceOptions, useDevices } from './sms/use-devices.ts';

export function IncomingPage(_props: Record<string, string>) {
  const { devices, nameOf } = useDevices();
  const [deviceId, setDeviceId] = useState('');
  const mms = usePagedList<IncomingMms>('/mms/incoming', { device_id: deviceId || undefined });
  const list = usePagedList<IncomingSms>('/incoming', { device_id: deviceId || undefined }, {
    // A received SMS is the newest: it shows on the first page, if the filter lets it.
    'sms.received': (event, shown) => shown.page === 1 && (!deviceId || event.device_id === deviceId),
  });

  return (
    <Page title="Incoming SMS">
      <form class="filters card" role="search" aria-label="Filter incoming SMS" onSubmit={(event) => event.preventDefault()}>
        <SelectField label="Device" name="device_id" value={deviceId} onValue={setDeviceId} options={deviceOptions(devices, 'All devices')} />
      </form>
      <DataTable
        list={list}
        class="incoming-table stack-on-phone"
        empty={deviceId ? 'This device has received no SMS.' : 'No SMS received yet. Phones forward the SMS they receive while their "Forward incoming SMS" setting is on.'}
        columns={[
          timeColumn<IncomingSms>('Received', (sms) => sms.received_at),
          deviceColumn(nameOf),
          { header: 'From', class: 'mono sms-nowrap', cell: (sms) => sms.phone },
          { header: 'Message', class: 'sms-text-cell', cell: (sms) => sms.message },
        ]}
      />
      <h2>Incoming MMS</h2>
      <DataTable
        list={mms}
        class="incoming-table incoming-mms-table stack-on-phone"
        empty="No MMS received yet."
        columns={[
          timeColumn<IncomingMms>('Received', (row) => row.received_at),
          deviceColumn(nameOf),
          { header: 'From', class: 'mono sms-nowrap', cell: (row) => row.phone },
          {
            header: 'Message',
            class: 'sms-text-cell',
            cell: (row) => (
              <>
                {row.subject && <strong>{row.subject} </strong>}
                {row.message}
              </>
            ),
          },
          {
            header: 'Parts',
            cell: (row) => (
              <MmsParts label={`Parts of the MMS from ${row.phone}`} parts={row.parts.map((part) => ({ key: part.id, content_type: part.content_type, size: part.size, download_path: part.download_path }))} />
            ),
          },
        ]}
      />
    </Page>
  );
}
