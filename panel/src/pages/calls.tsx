// The call log (GET /calls): each call the phones reported, newest first, with its recording
// playable in place. The audio streams from GET /calls/{id}/recording with the session cookie;
// the browser's player seeks with Range requests, which the gateway answers.
import { useState } from 'preact/hooks';
import { del } from '../api.ts';
import type { Call } from '../api/types.ts';
import { useSession } from '../session.tsx';
import { DataTable } from '../ui/data-table.tsx';
import { SelectField } from '../ui/fields.tsx';
import { formatTime } from '../ui/format.ts';
import { ErrorNotice } from '../ui/notice.tsx';
import { Page } from '../ui/page.tsx';
import { usePagedList } from '../ui/use-paged-list.ts';
import { useAction } from '../ui/use-action.ts';
import { RecordingPlayer } from './calls/recording-player.tsx';
import { deviceColumn, timeColumn } from './devices/reported-columns.tsx';
import { deviceOptions, useDevices } from './sms/use-devices.ts';

const DIRECTIONS = [
  { value: '', label: 'Any direction' },
  { value: 'incoming', label: 'Incoming' },
  { value: 'outgoing', label: 'Outgoing' },
  { value: 'missed', label: 'Missed' },
];

export function CallsPage(_props: Record<string, string>) {
  const session = useSession();
  const { devices, nameOf } = useDevices();
  const [deviceId, setDeviceId] = useState('');
  const [direction, setDirection] = useState('');
  const list = usePagedList<Call>('/calls', { device_id: deviceId || undefined, direction: direction || undefined });
  const removal = useAction(list.reload);

  const remove = (call: Call) => {
    if (!window.confirm(`Delete the call with ${call.phone}${call.recording ? ' and its recording' : ''}?`)) return;
    void removal.run(() => del(`/calls/${call.id}`));
  };

  return (
    <Page title="Calls">
      <form class="filters card" role="search" aria-label="Filter calls" onSubmit={(event) => event.preventDefault()}>
        <SelectField label="Device" name="device_id" value={deviceId} onValue={setDeviceId} options={deviceOptions(devices, 'All devices')} />
        <SelectField label="Direction" name="direction" value={direction} onValue={setDirection} options={DIRECTIONS} />
      </form>
      <ErrorNotice error={removal.error} />
      <DataTable
        list={list}
        class="stack-on-phone"
        empty={'No calls yet. Phones report their calls; they record them while their "Record calls" setting is on.'}
        columns={[
          timeColumn<Call>('Started', (call) => call.started_at),
          { header: 'Direction', cell: (call) => <span class={`badge ${call.direction === 'missed' ? 'badge-bad' : 'badge-neutral'}`}>{call.direction}</span> },
          { header: 'Phone', class: 'mono sms-nowrap', cell: (call) => call.phone },
          deviceColumn(nameOf),
          { header: 'Duration', numeric: true, cell: (call) => formatDuration(call.duration_seconds) },
          { header: 'Recording', cell: (call) => (call.recording ? <RecordingPlayer call={call} recording={call.recording} /> : <span class="muted">none</span>) },
          session.canChange && {
            header: 'Actions',
            cell: (call) => (
              <button type="button" class="button button-small button-danger" aria-label={`Delete call with ${call.phone} at ${formatTime(call.started_at)}`} onClick={() => remove(call)}>
                Delete
              </button>
            ),
          },
        ]}
      />
    </Page>
  );
}

function formatDuration(seconds: number): string {
  const minutes = Math.floor(seconds / 60);
  return `${minutes}:${String(seconds % 60).padStart(2, '0')}`;
}
