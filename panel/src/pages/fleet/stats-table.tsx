// The device report as a table: a row per device (its name linking to its page, its health), then
// a row per SIM under it, with the figures the API computed for each.
import type { DeviceHealth, DeviceStatsRow, SimStatsRow } from '../../api/types.ts';
import { href } from '../../router.ts';
import { Table } from '../../ui/table.tsx';
import { formatMs, formatRatio, simLabel } from './figures.ts';
import { HealthBadge, HealthUnavailable } from './health-badge.tsx';

type Row = { device: DeviceStatsRow; sim?: SimStatsRow };

/** `health`: each device's health by id; null: the gateway serves none; absent: not loaded yet. */
export function StatsTable({ devices, health }: { devices: DeviceStatsRow[]; health: Map<string, DeviceHealth | null> | undefined }) {
  const rows: Row[] = devices.flatMap((device) => [{ device }, ...device.sims.map((sim) => ({ device, sim }))]);
  const figures = (row: Row) => row.sim ?? row.device;
  return (
    <Table
      rows={rows}
      rowKey={(row) => `${row.device.device_id}:${row.sim ? (row.sim.sim_slot ?? 'unknown') : 'all'}`}
      rowAttributes={(row) => ({
        'data-device': row.device.device_id,
        'data-sim': row.sim ? String(row.sim.sim_slot ?? 'unknown') : 'all',
        class: row.sim ? 'fleet-sim-row' : 'fleet-device-row',
      })}
      caption="Per device, then per SIM"
      captionClass="visually-hidden"
      class="fleet-table stack-on-phone"
      columns={[
        {
          header: 'Device',
          rowHeader: true,
          cell: (row) =>
            row.sim ? (
              <span class="fleet-sim-name">{simLabel(row.sim.sim_slot)}</span>
            ) : (
              <>
                <a href={href(`/devices/${row.device.device_id}`)}>{row.device.name}</a>
                {row.device.deleted && <span class="muted"> (deleted)</span>}
              </>
            ),
        },
        { header: 'Health', cell: (row) => (row.sim ? simHealthOf(health, row.device.device_id, row.sim.sim_slot) : deviceHealthOf(health, row.device)) },
        { header: 'Sent', numeric: true, cell: (row) => figures(row).sent },
        { header: 'Failed', numeric: true, cell: (row) => figures(row).failed_send },
        { header: 'Delivered', numeric: true, cell: (row) => figures(row).delivered },
        { header: 'Undelivered', numeric: true, cell: (row) => figures(row).undelivered },
        { header: 'Delivery ratio', numeric: true, cell: (row) => formatRatio(figures(row).delivery_ratio) },
        { header: 'To sent (median / p95)', numeric: true, cell: (row) => `${formatMs(figures(row).to_sent_median_ms)} / ${formatMs(figures(row).to_sent_p95_ms)}` },
        {
          header: 'To delivered (median / p95)',
          numeric: true,
          cell: (row) => `${formatMs(figures(row).to_delivered_median_ms)} / ${formatMs(figures(row).to_delivered_p95_ms)}`,
        },
        {
          header: 'Canary passed',
          numeric: true,
          cell: (row) => (figures(row).canary_ended === 0 ? '—' : `${formatRatio(figures(row).canary_pass_rate)} of ${figures(row).canary_ended}`),
        },
      ]}
    />
  );
}

function deviceHealthOf(health: Map<string, DeviceHealth | null> | undefined, device: DeviceStatsRow) {
  if (device.deleted) return <span class="muted">deleted</span>;
  if (!health) return <span class="muted">…</span>;
  const found = health.get(device.device_id);
  return found ? <HealthBadge state={found.state} /> : <HealthUnavailable />;
}

function simHealthOf(health: Map<string, DeviceHealth | null> | undefined, deviceId: string, slot: number | null) {
  const sim = health?.get(deviceId)?.sims.find((candidate) => candidate.sim_slot === slot);
  return sim ? <HealthBadge state={sim.state} /> : null;
}
