// What the upstream router writes through delivery: an SMS's status changes (its history, and the
// "sms.status_changed" event that webhooks and the rest hear, as for a phone's report) and its
// attempts through a provider, in the attempts log beside the phones' (sms_attempts.upstream_id).
import type { Executor } from '../../storage/database.ts';

export interface UpstreamAttempt {
  smsId: string;
  attempt: number;
  upstreamId: string;
  at: Date;
  result: 'sent' | 'failed';
  errorCode: string | null;
  error: string | null;
  /** The SMS goes on to another rule after this attempt. */
  retried: boolean;
}

/** One attempt through a provider, written when it ended (a submission's answer is its end). */
export async function writeUpstreamAttempt(db: Executor, attempt: UpstreamAttempt): Promise<void> {
  await db.raw(
    `insert into sms_attempts (sms_id, attempt, device_id, sim_slot, started_at, ended_at, result, error_code, error, retried, upstream_id)
     values (?, ?, null, null, ?, ?, ?, ?, ?, ?, ?)
     on conflict do nothing`,
    [attempt.smsId, attempt.attempt, attempt.at, attempt.at, attempt.result, attempt.errorCode, attempt.error, attempt.retried, attempt.upstreamId],
  );
}
