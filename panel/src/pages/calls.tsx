// The call log (GET /calls): each call the phones reported, newest first, with its recording
// playable in place. The audio streams from GET /calls/{id}/recording with the session cookie;
// the browser's player seeks with Range requests, which the gateway answers.
import { useEffect, useState } from 'preact/hooks';
import { del, get, type Page as ApiPage } from '../api.ts';
import { href } from '../router.ts';
import { useSession } from '../session.tsx';
import { SelectField } from '../ui/fields.tsx';
import { formatTime } from '../ui/format.ts';
import { ErrorNotice } from '../ui/notice.tsx';
import { Empty, Loading, Page } from '../ui/page.tsx';
import { Pager, useCursors } from '../ui/pager.tsx';
import { useLoad } from '../ui/use-load.ts';
import { ApiError } from '../api.ts';
import { deviceOptions, useDevices } from './sms/use-devices.ts';
import type { Call, Recording } from '../api/types.ts';

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
  const [error, setError] = useState<ApiError>();
  const cursors = useCursors();
  const list = useLoad(
    () => get<ApiPage<Call>>('/calls', { device_id: deviceId || undefined, direction: direction || undefined, cursor: cursors.cursor }),
    [deviceId, direction, cursors.cursor],
  );
  useEffect(() => cursors.reset(), [deviceId, direction]);

  const remove = async (call: Call) => {
    if (!window.confirm(`Delete the call with ${call.phone}${call.recording ? ' and its recording' : ''}?`)) return;
    setError(undefined);
    try {
      await del(`/calls/${call.id}`);
      list.reload();
    } catch (caught) {
      setError(caught instanceof ApiError ? caught : new ApiError(0, 'network', String(caught)));
    }
  };

  return (
    <Page title="Calls">
      <form class="filters card" role="search" aria-label="Filter calls" onSubmit={(event) => event.preventDefault()}>
        <SelectField label="Device" name="device_id" value={deviceId} onValue={setDeviceId} options={deviceOptions(devices, 'All devices')} />
        <SelectField label="Direction" name="direction" value={direction} onValue={setDirection} options={DIRECTIONS} />
      </form>
      <ErrorNotice error={error} />
      <Loading data={list.data} error={list.error}>
        {(page) =>
          page.data.length === 0 ? (
            <Empty>No calls yet. Phones report their calls; they record them while their "Record calls" setting is on.</Empty>
          ) : (
            <>
              <div class="table-wrap">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Started</th>
                      <th scope="col">Direction</th>
                      <th scope="col">Phone</th>
                      <th scope="col">Device</th>
                      <th scope="col" class="num">Duration</th>
                      <th scope="col">Recording</th>
                      {session.canChange && <th scope="col">Actions</th>}
                    </tr>
                  </thead>
                  <tbody>
                    {page.data.map((call) => (
                      <tr key={call.id}>
                        <td class="sms-nowrap">
                          <time dateTime={call.started_at}>{formatTime(call.started_at)}</time>
                        </td>
                        <td>
                          <span class={`badge ${call.direction === 'missed' ? 'badge-bad' : 'badge-neutral'}`}>{call.direction}</span>
                        </td>
                        <td class="mono sms-nowrap">{call.phone}</td>
                        <td>
                          <a href={href(`/devices/${call.device_id}`)}>{nameOf(call.device_id)}</a>
                          {call.sim_slot !== null && <span class="muted"> SIM {call.sim_slot + 1}</span>}
                        </td>
                        <td class="num">{formatDuration(call.duration_seconds)}</td>
                        <td>{call.recording ? <RecordingPlayer call={call} recording={call.recording} /> : <span class="muted">none</span>}</td>
                        {session.canChange && (
                          <td>
                            <button type="button" class="button button-small button-danger" aria-label={`Delete call with ${call.phone} at ${formatTime(call.started_at)}`} onClick={() => void remove(call)}>
                              Delete
                            </button>
                          </td>
                        )}
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

function RecordingPlayer({ call, recording }: { call: Call; recording: Recording }) {
  const label = `Recording of the call with ${call.phone} at ${formatTime(call.started_at)}`;
  return (
    <div class="call-recording">
      {/* preload="none": a long list must not download every recording to show its players. */}
      <audio controls preload="none" src={recording.download_path} aria-label={label} data-testid="call-recording" />
      <a href={recording.download_path} download>
        Download ({formatSize(recording.size_bytes)})
      </a>
    </div>
  );
}

function formatDuration(seconds: number): string {
  const minutes = Math.floor(seconds / 60);
  return `${minutes}:${String(seconds % 60).padStart(2, '0')}`;
}

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
