// Every SMS of the account, newest first: search, filters and paging are the API's (GET /sms);
// the list follows status changes live.
import { useState } from 'preact/hooks';
import { href } from '../router.ts';
import { useSession } from '../session.tsx';
import { StatusBadge } from '../ui/badge.tsx';
import { SelectField, TextField } from '../ui/fields.tsx';
import { formatTime, statusLabel } from '../ui/format.ts';
import { DataTable } from '../ui/data-table.tsx';
import { Page, PrimaryLink } from '../ui/page.tsx';
import { usePagedList } from '../ui/use-paged-list.ts';
import { hasFilters, NO_FILTERS, smsListQuery, type SmsFilters } from './sms/filters.ts';
import type { Sms } from '../api/types.ts';
import { SMS_STATUSES } from './sms/statuses.ts';
import { useDebounced } from './sms/use-debounced.ts';
import { deviceOptions, useDevices } from './sms/use-devices.ts';

const SEARCH_PAUSE_MS = 300;

export function SmsListPage(_props: Record<string, string>) {
  const session = useSession();
  const { devices, nameOf } = useDevices();
  const [filters, setFilters] = useState<SmsFilters>(NO_FILTERS);
  const search = useDebounced(filters.search, SEARCH_PAUSE_MS);
  const list = usePagedList<Sms>('/sms', smsListQuery({ ...filters, search }), {
    // New SMS appear on the first page; later pages change only when one of their rows does.
    'sms.status': (event, shown) => shown.page === 1 || shown.rows.some((sms) => sms.id === event.id),
  });

  const set = (field: keyof SmsFilters) => (value: string) => setFilters((previous) => ({ ...previous, [field]: value }));
  return (
    <Page title="SMS" actions={session.canChange && <PrimaryLink to="/send">Send SMS</PrimaryLink>}>
      <form class="filters card sms-filters" role="search" aria-label="Filter SMS" onSubmit={(event) => event.preventDefault()}>
        <TextField label="Search" type="search" name="search" value={filters.search} onValue={set('search')} hint="Text, phone number or status" />
        <SelectField
          label="Status"
          name="status"
          value={filters.status}
          onValue={set('status')}
          options={[{ value: '', label: 'Any status' }, ...SMS_STATUSES.map((status) => ({ value: status, label: statusLabel(status) }))]}
        />
        <SelectField label="Device" name="device_id" value={filters.deviceId} onValue={set('deviceId')} options={deviceOptions(devices, 'Any device')} />
        <TextField label="From" type="date" name="from" value={filters.fromDay} onValue={set('fromDay')} />
        <TextField label="To" type="date" name="to" value={filters.toDay} onValue={set('toDay')} />
      </form>
      <DataTable
        list={list}
        class="sms-table"
        caption="SMS, newest first"
        empty={!hasFilters(filters) ? 'No SMS yet.' : 'No SMS match these filters.'}
        columns={[
          {
            header: 'To',
            class: 'sms-nowrap',
            cell: (sms) => (
              <>
                <a class="mono" href={href(`/sms/${sms.id}`)}>
                  {sms.phone}
                </a>
                {sms.kind === 'mms' && <span class="badge"> MMS</span>}
              </>
            ),
          },
          {
            header: 'Status',
            cell: (sms) => (
              <>
                <StatusBadge status={sms.status} />
                {sms.reason && <span class="sms-reason muted"> {sms.reason}</span>}
              </>
            ),
          },
          { header: 'Message', class: 'sms-text-cell', cell: (sms) => sms.message },
          { header: 'Device', class: 'sms-nowrap', cell: (sms) => nameOf(sms.device_id) },
          { header: 'Created', class: 'sms-nowrap', cell: (sms) => formatTime(sms.sent_at) },
        ]}
      />
    </Page>
  );
}
