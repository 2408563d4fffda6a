// The account's webhooks in trouble, as the dashboard (stats module) lists them.
import type { Executor } from '../../storage/database.ts';

/**
 * The account's webhooks that are failing now (a failure streak under way) or disabled. Only
 * those the webhook API shows: the Twilio API's callbacks are webhooks of their own format.
 */
export async function failingWebhookIds(db: Executor, accountId: string): Promise<string[]> {
  const rows = await db('webhooks')
    .where({ account_id: accountId, format: 'standard' })
    .andWhere((failing) => failing.whereNotNull('failing_since').orWhere('enabled', false))
    .orderBy('created_at')
    .select('id');
  return rows.map((row: { id: string }) => row.id);
}
