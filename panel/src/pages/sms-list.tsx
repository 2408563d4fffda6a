// Every SMS of the account, newest first: search, filters and paging are the API's (GET /sms);
// the list follows status changes live.
import { useEffect, useState } from 'preact/hooks';
import { get, type Page as ApiPage } from '../api.ts';
import { useLiveEvents } from '../live.ts';
import { href } from '../router.ts';
import { useSession } from '../session.tsx';
import { StatusBadge } from '../ui/badge.tsx';
import { SelectField, TextField } from '../ui/fields.tsx';
import { formatTime, statusLabel } from '../ui/format.ts';
import { Empty, Loading, Page } from '../ui/page.tsx';
import { Pager, useCursors } from '../ui/pager.tsx';
import { useLoad } from '../ui/use-load.ts';
import { hasFilters, NO_FILTERS, smsListQuery, type SmsFilters } from './sms/filters.ts';
import type { Sms } from '../api/types.ts';
import { SMS_STATUSES } from './sms/statuses.ts';
import { useDebounced } from './sms/use-debounced.ts';
import { deviceOptions, useDevices } from './sms/use-devices.ts';
import { useThrottled } from '../ui/use-throttled.ts';

const SEARCH_PAUSE_MS = 300;
const LIVE_RELOAD_MS = 1000;

export function SmsListPage(_props: Record<string, string>) {
  const session = useSession();
  const { devices, nameOf } = useDevices();
  const [filters, setFilters] = useState<SmsFilters>(NO_FILTERS);
  const search = useDebounced(filters.search, SEARCH_PAUSE_MS);
  const cursors = useCursors();
  const applied = { ...filters, search };
  const list = useLoad(() => get<ApiPage<Sms>>('/sms', smsListQuery(applied, cursors.cursor)), [
    search,
    filters.status,
    filters.deviceId,
    filters.fromDay,
    filters.toDay,
    cursors.cursor,
  ]);
  // A changed filter is a new list: start again from its first page.
  useEffect(() => cursors.reset(), [search, filters.status, filters.deviceId, filters.fromDay, filters.toDay]);

  const reloadSoon = useThrottled(list.reload, LIVE_RELOAD_MS);
  useLiveEvents(
    (event) => {
      if (event.type !== 'sms.status') return;
      // New SMS appear on the first page; later pages change only when one of their rows does.
      if (cursors.page === 1 || list.data?.data.some((sms) => sms.id === event.id)) reloadSoon();
    },
    list.reload,
  );

  const set = (field: keyof SmsFilters) => (value: string) => setFilters((previous) => ({ ...previous, [field]: value }));
  return (
    <Page
      title="SMS"
      actions={
        session.canChange && (
          <a class="button button-primary" href={href('/send')}>
            Send SMS
          </a>
        )
      }
    >
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
      <Loading data={list.data} error={list.error}>
        {(page) =>
          page.data.length === 0 ? (
            <Empty>{!hasFilters(filters) ? 'No SMS yet.' : 'No SMS match these filters.'}</Empty>
          ) : (
            <>
              <div class="table-wrap">
                <table class="sms-table">
                  <caption class="sms-visually-hidden">SMS, newest first</caption>
                  <thead>
                    <tr>
                      <th scope="col">To</th>
                      <th scope="col">Status</th>
                      <th scope="col">Message</th>
                      <th scope="col">Device</th>
                      <th scope="col">Created</th>
                    </tr>
                  </thead>
                  <tbody>
                    {page.data.map((sms) => (
                      <tr key={sms.id}>
                        <td class="sms-nowrap">
                          <a class="mono" href={href(`/sms/${sms.id}`)}>
                            {sms.phone}
                          </a>
                        </td>
                        <td>
                          <StatusBadge status={sms.status} />
                          {sms.reason && <span class="sms-reason muted"> {sms.reason}</span>}
                        </td>
                        <td class="sms-text-cell">{sms.message}</td>
                        <td class="sms-nowrap">{nameOf(sms.device_id)}</td>
                        <td class="sms-nowrap">{formatTime(sms.sent_at)}</td>
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
