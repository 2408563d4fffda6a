// The fleet at a glance: for a chosen range of days, what each device and each of its SIMs did
// with the SMS it was handed (GET /stats/devices), with a CSV download of the same; each
// device's health (GET /devices/{id}/health); and the account's canary rounds.
import { useState } from 'preact/hooks';
import { API, get } from '../api.ts';
import { unlessAbsent } from '../api/optional.ts';
import type { DeviceHealth, DeviceStats } from '../api/types.ts';
import { useSession } from '../session.tsx';
import { Card } from '../ui/card.tsx';
import { TextField } from '../ui/fields.tsx';
import { formatTime } from '../ui/format.ts';
import { Empty, Loading, Page } from '../ui/page.tsx';
import { useLoad } from '../ui/use-load.ts';
import { CanaryCard } from './fleet/canary-card.tsx';
import { instantsOf, lastDays, type DayRange } from './fleet/range.ts';
import { StatsTable } from './fleet/stats-table.tsx';

/** Health reads in flight at once. */
const HEALTH_READS_AT_ONCE = 6;

export function FleetPage(_props: Record<string, string>) {
  const session = useSession();
  // The days being picked, and those shown: both days are chosen before the report is asked for.
  const [draft, setDraft] = useState<DayRange>(() => lastDays());
  const [range, setRange] = useState<DayRange>(draft);
  const asked = instantsOf(range);
  const stats = useLoad(() => get<DeviceStats>('/stats/devices', asked), [asked.from, asked.to]);
  const ids = (stats.data?.devices ?? []).filter((device) => !device.deleted).map((device) => device.device_id);
  const health = useLoad(() => healthOf(ids), [ids.join(',')]);
  const csv = `${API}/stats/devices?${new URLSearchParams({ ...asked, format: 'csv' }).toString()}`;

  return (
    <Page title="Fleet">
      <form
        class="filters card fleet-range"
        aria-label="Range"
        onSubmit={(event) => {
          event.preventDefault();
          setRange(draft);
        }}
      >
        <TextField label="From" type="date" name="from" value={draft.fromDay} onValue={(fromDay) => setDraft({ ...draft, fromDay })} />
        <TextField label="To (included)" type="date" name="to" value={draft.toDay} onValue={(toDay) => setDraft({ ...draft, toDay })} />
        <p class="page-actions">
          <button type="submit" class="button button-primary">
            Show
          </button>
          <a class="button" href={csv} download="device-stats.csv">
            Download CSV
          </a>
        </p>
      </form>
      <Card title="Devices and SIMs">
        <Loading data={stats.data} error={stats.error}>
          {(loaded) => (
            <>
              <p class="hint" data-from={loaded.from} data-to={loaded.to}>
                SMS created from {formatTime(loaded.from)} to {formatTime(loaded.to)} that were handed to a phone and ended; times run from the hand-out.
                Canary SMS count only under "Canary passed".
              </p>
              {loaded.devices.length === 0 ? <Empty>No devices yet.</Empty> : <StatsTable devices={loaded.devices} health={health.data} />}
            </>
          )}
        </Loading>
      </Card>
      <CanaryCard canChange={session.canChange} />
    </Page>
  );
}

/**
 * Each device's health, by id: null for a device whose health could not be read (a gateway that
 * serves none answers 404), so one device's trouble does not blank the others'.
 */
async function healthOf(ids: string[]): Promise<Map<string, DeviceHealth | null>> {
  const health = new Map<string, DeviceHealth | null>();
  // A few at a time: a fleet of hundreds must not open hundreds of requests at once.
  for (let start = 0; start < ids.length; start += HEALTH_READS_AT_ONCE) {
    const batch = ids.slice(start, start + HEALTH_READS_AT_ONCE);
    const read = await Promise.all(batch.map((id) => unlessAbsent(() => get<DeviceHealth>(`/devices/${encodeURIComponent(id)}/health`)).catch(() => null)));
    batch.forEach((id, index) => health.set(id, read[index] ?? null));
  }
  return health;
}
