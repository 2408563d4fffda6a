// Columns of what the phones report (the SMS they received, their calls): when it happened, and
// which device (and SIM) reported it.
import { href } from '../../router.ts';
import type { Column } from '../../ui/data-table.tsx';
import { formatTime } from '../../ui/format.ts';

export function timeColumn<Row>(header: string, at: (row: Row) => string): Column<Row> {
  return { header, class: 'sms-nowrap', cell: (row) => <time dateTime={at(row)}>{formatTime(at(row))}</time> };
}

/** `nameOf` names a device by its id (useDevices). An SMS that came through an upstream provider names no device. */
export function deviceColumn<Row extends { device_id: string | null; sim_slot: number | null }>(nameOf: (id: string) => string): Column<Row> {
  return {
    header: 'Device',
    cell: (row) =>
      row.device_id === null ? (
        <span class="muted">through an upstream</span>
      ) : (
        <>
          <a href={href(`/devices/${row.device_id}`)}>{nameOf(row.device_id)}</a>
          {row.sim_slot !== null && <span class="muted"> SIM {row.sim_slot + 1}</span>}
        </>
      ),
  };
}
