// A webhook's id is also the callback_id the legacy POST /sms/send takes: shown where it can be
// copied, because that is how legacy clients tie an SMS to this webhook.
import { Copyable } from '../../ui/notice.tsx';

export function CallbackId({ id }: { id: string }) {
  return <Copyable value={id} label="Copy callback id" testId="callback-id" inline />;
}
