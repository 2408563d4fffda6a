// A webhook's id is also the callback_id the legacy POST /sms/send takes: shown where it can be
// copied, because that is how legacy clients tie an SMS to this webhook.
import { CopyButton } from '../../ui/notice.tsx';

export function CallbackId({ id }: { id: string }) {
  return (
    <span class="secret-row">
      <code class="secret" data-testid="callback-id">
        {id}
      </code>
      <CopyButton value={id} label="Copy callback id" />
    </span>
  );
}
