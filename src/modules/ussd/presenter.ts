import type { Static } from '@sinclair/typebox';
import type { UssdView as UssdViewSchema } from './schema.ts';
import { FINAL_USSD_STATUSES, type UssdSessionRow } from './types.ts';

/** A USSD session as the Extended API and the ussd.* webhook events show it. */
export type UssdView = Static<typeof UssdViewSchema>;

export function presentUssd(row: UssdSessionRow): UssdView {
  const final = FINAL_USSD_STATUSES.includes(row.status);
  return {
    id: row.id,
    device_id: row.device_id,
    code: row.code,
    sim: row.sim,
    status: row.status,
    message: row.message,
    error: row.error,
    // jsonb keeps keys in its own order: written out in the documented one.
    history: row.history.map((said) => ({ from: said.from, text: said.text, at: said.at })),
    timeout_seconds: row.timeout_seconds,
    expires_at: final ? null : row.expires_at.toISOString(),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    finished_at: row.finished_at?.toISOString() ?? null,
  };
}
