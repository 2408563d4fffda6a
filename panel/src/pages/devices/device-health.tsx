// A device's health on its page: healthy, degraded or unknown and why, each SIM's state and
// figures over the health window, and the last canary probes it took part in. An owner may mark
// the device (or one SIM) healthy again, which gives a SIM that did not send work at once. A
// gateway that serves no health for devices (404) shows "not available".
import { get, post } from '../../api.ts';
import { unlessAbsent } from '../../api/optional.ts';
import type { CanaryResult, DeviceHealth, HealthReason, SimHealth } from '../../api/types.ts';
import { href } from '../../router.ts';
import { Card } from '../../ui/card.tsx';
import { formatTime } from '../../ui/format.ts';
import { ErrorNotice } from '../../ui/notice.tsx';
import { Loading } from '../../ui/page.tsx';
import { Table } from '../../ui/table.tsx';
import { WideTable } from '../../ui/wide-table.tsx';
import { useAction } from '../../ui/use-action.ts';
import { useLoad } from '../../ui/use-load.ts';
import { formatMs, formatRatio, simLabel } from '../fleet/figures.ts';
import { useDevices } from '../sms/use-devices.ts';
import { HealthBadge, HealthUnavailable } from '../fleet/health-badge.tsx';

export function DeviceHealthCard({ deviceId, canChange }: { deviceId: string; canChange: boolean }) {
  const path = `/devices/${encodeURIComponent(deviceId)}/health`;
  const health = useLoad(() => unlessAbsent(() => get<DeviceHealth>(path)), [path]);
  const mark = useAction(health.reload);
  const markHealthy = async (simSlot?: number) => {
    const what = simSlot === undefined ? 'every SIM of this device' : simLabel(simSlot);
    if (!window.confirm(`Mark ${what} healthy? A SIM found not sending is given work again at once; the next canary rounds judge it again.`)) return;
    await mark.run(() => post<DeviceHealth>(`${path}/mark-healthy`, simSlot === undefined ? {} : { sim_slot: simSlot }));
  };
  return (
    <Card title="Health" class="device-health">
      <Loading data={health.data} error={health.error}>
        {(loaded) =>
          loaded === null ? (
            <p>
              Health: <HealthUnavailable />
            </p>
          ) : (
            <>
              <ErrorNotice error={mark.error} />
              <p>
                State: <HealthBadge state={loaded.state} />
                {canChange && loaded.state === 'degraded' && (
                  <>
                    {' '}
                    <button type="button" class="button button-small" disabled={mark.busy} onClick={() => void markHealthy()}>
                      Mark healthy
                    </button>
                  </>
                )}
              </p>
              <Reasons reasons={loaded.reasons} />
              <SimHealthTable sims={loaded.sims} windowHours={loaded.window_hours} canChange={canChange} busy={mark.busy} onMarkHealthy={(slot) => void markHealthy(slot)} />
              <CanaryTable results={loaded.canary} />
            </>
          )
        }
      </Loading>
    </Card>
  );
}

function Reasons({ reasons }: { reasons: HealthReason[] }) {
  if (reasons.length === 0) return null;
  return (
    <ul class="health-reasons">
      {reasons.map((reason, index) => (
        <li key={index} data-reason={reason.code}>
          {reason.sim_slot !== null && <strong>{simLabel(reason.sim_slot)}: </strong>}
          {reason.detail}
        </li>
      ))}
    </ul>
  );
}

function SimHealthTable({ sims, windowHours, canChange, busy, onMarkHealthy }: { sims: SimHealth[]; windowHours: number; canChange: boolean; busy: boolean; onMarkHealthy: (slot: number) => void }) {
  if (sims.length === 0) return <p class="muted">No SIM reported.</p>;
  return (
    <WideTable label="SIMs">
      <Table
        rows={sims}
        rowKey={(sim) => sim.sim_slot}
        rowAttributes={(sim) => ({ 'data-sim': String(sim.sim_slot) })}
        caption={`SIMs, over the last ${windowHours} hours`}
        class="sim-health-table"
        columns={[
          { header: 'SIM', rowHeader: true, cell: (sim) => (sim.phone_number ? `${simLabel(sim.sim_slot)} (${sim.phone_number})` : simLabel(sim.sim_slot)) },
          {
            header: 'State',
            cell: (sim) => (
              <>
                <HealthBadge state={sim.state} />
                {sim.fault && <span class="muted"> fails to {sim.fault}</span>}
                {sim.degraded_since && <span class="muted"> since {formatTime(sim.degraded_since)}</span>}
              </>
            ),
          },
          { header: 'Sent', numeric: true, cell: (sim) => sim.sent },
          { header: 'Failed', numeric: true, cell: (sim) => sim.failed_send },
          { header: 'Delivered', numeric: true, cell: (sim) => formatRatio(sim.delivery_ratio) },
          { header: 'Last sent', cell: (sim) => formatTime(sim.last_sent_at) },
          { header: 'Last received', cell: (sim) => formatTime(sim.last_received_at) },
          canChange && {
            header: 'Action',
            cell: (sim) =>
              sim.state === 'degraded' && (
                <button type="button" class="button button-small" disabled={busy} aria-label={`Mark healthy: ${simLabel(sim.sim_slot)}`} onClick={() => onMarkHealthy(sim.sim_slot)}>
                  Mark healthy
                </button>
              ),
          },
        ]}
      />
    </WideTable>
  );
}

function CanaryTable({ results }: { results: CanaryResult[] }) {
  const { nameOf } = useDevices();
  if (results.length === 0) return <p class="muted">No canary probe yet.</p>;
  return (
    <WideTable label="Last canary probes">
      <Table
        rows={results}
        rowKey={(result) => `${result.round}:${result.role}:${result.sim_slot}:${result.partner_device_id}:${result.partner_sim_slot}`}
        rowAttributes={(result) => ({ 'data-canary': result.result })}
        caption="Last canary probes, newest first"
        class="canary-table"
        columns={[
          { header: 'When', cell: (result) => formatTime(result.at) },
          { header: 'Round', numeric: true, cell: (result) => result.round },
          { header: 'Role', cell: (result) => (result.role === 'sender' ? `${simLabel(result.sim_slot)} sent` : `${simLabel(result.sim_slot)} received`) },
          {
            header: 'Partner',
            cell: (result) => (
              <a href={href(`/devices/${result.partner_device_id}`)}>
                {nameOf(result.partner_device_id)}, {simLabel(result.partner_sim_slot)}
              </a>
            ),
          },
          { header: 'Result', cell: (result) => <span class={`badge badge-${result.result === 'passed' ? 'good' : result.result === 'failed' ? 'bad' : 'neutral'}`}>{result.result}</span> },
          { header: 'Why', cell: (result) => result.failure ?? '' },
          { header: 'Round trip', numeric: true, cell: (result) => formatMs(result.round_trip_ms) },
        ]}
      />
    </WideTable>
  );
}
