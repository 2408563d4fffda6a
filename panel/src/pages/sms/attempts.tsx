// The send attempts of one SMS (GET /sms/{id}/attempts): which device and SIM tried it, when, and
// how each ended. A failure that went round again says so: the SMS stayed pending meanwhile.
import { get } from '../../api.ts';
import { href } from '../../router.ts';
import { formatTime } from '../../ui/format.ts';
import { Loading } from '../../ui/page.tsx';
import { useLoad } from '../../ui/use-load.ts';
import type { SmsAttempt } from '../../api/types.ts';

const RESULT_LABELS = { sending: 'Sending', sent: 'Sent', failed: 'Failed' } as const;

export function SmsAttempts({ id, version, nameOf }: { id: string; version: string; nameOf: (deviceId: string) => string }) {
  const attempts = useLoad(() => get<{ data: SmsAttempt[] }>(`/sms/${encodeURIComponent(id)}/attempts`), [id, version]);
  return (
    <Loading data={attempts.data} error={attempts.error}>
      {({ data }) =>
        data.length === 0 ? (
          <p class="muted">No phone has tried it yet.</p>
        ) : (
          <ol class="attempts" data-testid="sms-attempts">
            {data.map((attempt) => (
              <li key={attempt.attempt}>
                <strong>
                  Attempt {attempt.attempt}: {RESULT_LABELS[attempt.result]}
                </strong>{' '}
                {attempt.device_id ? <a href={href(`/devices/${attempt.device_id}`)}>{nameOf(attempt.device_id)}</a> : 'unknown device'}
                {attempt.sim_slot !== null && `, SIM ${attempt.sim_slot + 1}`}
                <span class="muted">
                  {' '}
                  {formatTime(attempt.started_at)}
                  {attempt.ended_at && ` to ${formatTime(attempt.ended_at)}`}
                </span>
                {attempt.result === 'failed' && (
                  <div class="muted">
                    {attempt.error_code ?? 'no error code'}
                    {attempt.error && `: ${attempt.error}`}
                    {attempt.retried ? ' (tried again)' : ' (final)'}
                  </div>
                )}
              </li>
            ))}
          </ol>
        )
      }
    </Loading>
  );
}
