// The dashboard: devices online and offline, devices with a degraded SIM, today's SMS by status,
// sent and failed per hour, webhooks in trouble, and the devices' batteries. Live events reload
// the summary at most every 2 s, the devices as their list does.
import { get } from '../api.ts';
import type { Device, Summary } from '../api/types.ts';
import { useLiveEvents } from '../live/use-live-events.ts';
import { href } from '../router.ts';
import { StatusBadge } from '../ui/badge.tsx';
import { formatTime } from '../ui/format.ts';
import { Loading, Page } from '../ui/page.tsx';
import { useLoad } from '../ui/use-load.ts';
import { usePagedList } from '../ui/use-paged-list.ts';
import { DegradedDevices } from './dashboard/degraded-devices.tsx';
import { DevicesGlance } from './dashboard/devices-glance.tsx';
import { HourlyChart } from './dashboard/hourly-chart.tsx';
import { useThrottled } from '../ui/use-throttled.ts';
import { Card } from '../ui/card.tsx';

const RELOAD_EVERY_MS = 2000;
/** Devices shown at a glance; the devices page lists them all. */
const GLANCE_DEVICES = 10;

export function DashboardPage() {
  // "Today" is the person's day, not the gateway's UTC one: counted from their own midnight,
  // read again at each reload so it moves on when the day does.
  const summary = useLoad(() => get<Summary>('/stats/summary', { since: localMidnight().toISOString() }), []);
  const devices = usePagedList<Device>('/devices', { limit: GLANCE_DEVICES }, { 'device.presence': () => true });
  // Every event moves a number of the summary.
  const reloadSummary = useThrottled(summary.reload, RELOAD_EVERY_MS);
  useLiveEvents({ 'sms.status': reloadSummary, 'sms.received': reloadSummary, 'device.presence': reloadSummary }, reloadSummary);

  return (
    <Page title="Dashboard">
      <Loading data={summary.data} error={summary.error}>
        {(loaded) => (
          <>
            <div class="cards dashboard-stats">
              {/* null for a caller who may not read devices. */}
              {loaded.devices && (
                <>
                  <StatCard title="Devices online" value={loaded.devices.online} link={href('/devices')} linkText="See the devices" />
                  <StatCard title="Devices offline" value={loaded.devices.offline} link={href('/devices')} linkText="See the devices" />
                </>
              )}
              <StatCard title="Webhooks failing" value={loaded.webhooks.failing} link={href('/webhooks')} linkText="See the webhooks" />
            </div>
            {/* null for a caller who may not read devices; absent from a gateway without fleet health. */}
            {loaded.degraded_devices !== null && <DegradedDevices devices={loaded.degraded_devices} />}
            <Card title="SMS today">
              <p class="hint">Created since {formatTime(loaded.sms.since)}, by their status now.</p>
              <ul class="status-counts">
                {Object.entries(loaded.sms.by_status).map(([status, count]) => (
                  <li key={status} data-status-count={status}>
                    <span class="stat">{count}</span> <StatusBadge status={status} />
                  </li>
                ))}
              </ul>
              <p>
                <a href={href('/sms')}>See the SMS</a>
              </p>
            </Card>
            <Card title="Sent and failed per hour">
              <HourlyChart hours={loaded.hourly} />
            </Card>
          </>
        )}
      </Loading>
      <Card title="Devices at a glance">
        <DevicesGlance devices={devices} />
      </Card>
    </Page>
  );
}

function StatCard({ title, value, link, linkText }: { title: string; value: number; link: string; linkText: string }) {
  return (
    <div class="card stat-card">
      <h2 class="stat-title">{title}</h2>
      <p class="stat">{value}</p>
      <a href={link}>{linkText}</a>
    </div>
  );
}

/** The start of today in the browser's time zone. */
function localMidnight(now = new Date()): Date {
  return new Date(now.getFullYear(), now.getMonth(), now.getDate());
}
