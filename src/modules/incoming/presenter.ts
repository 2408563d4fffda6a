import type { Static } from '@sinclair/typebox';
import type { IncomingSmsRow } from './repository.ts';
import type { IncomingSmsView } from './schema.ts';

export function presentIncoming(row: IncomingSmsRow): Static<typeof IncomingSmsView> {
  return {
    id: row.id,
    device_id: row.device_id,
    phone: row.phone,
    message: row.message,
    sim_slot: row.sim_slot,
    received_at: row.received_at.toISOString(),
    created_at: row.created_at.toISOString(),
    // Present only when true, so that a plain received SMS reads as it always has.
    ...(row.is_encrypted ? { is_encrypted: true as const } : {}),
    // Present only for an SMS that came through an upstream provider (device_id is null then).
    ...(row.upstream_id ? { upstream_id: row.upstream_id } : {}),
  };
}
