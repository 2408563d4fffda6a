// One SMS: what was sent, where it stands, and every status it went through. Follows the SMS's
// status events live; owners may cancel it while it waits.
import { useState } from 'preact/hooks';
import { ApiError, get, post } from '../api.ts';
import { useLiveEvents } from '../live/use-live-events.ts';
import { href } from '../router.ts';
import { useSession } from '../session.tsx';
import { StatusBadge } from '../ui/badge.tsx';
import { formatTime } from '../ui/format.ts';
import { ErrorNotice, SuccessNotice } from '../ui/notice.tsx';
import { Loading, Page } from '../ui/page.tsx';
import { useLoad } from '../ui/use-load.ts';
import { SmsHistory } from './sms/history.tsx';
import type { MmsView, SmsDetail } from '../api/types.ts';
import { MmsParts } from './mms/parts.tsx';
import { SmsAttempts } from './sms/attempts.tsx';
import { useDevices } from './sms/use-devices.ts';
import { Card } from '../ui/card.tsx';

const ENCODING_LABELS = { gsm7: 'GSM 7-bit', ucs2: 'UCS-2' } as const;

export function SmsDetailPage({ id }: { id: string }) {
  const session = useSession();
  const { nameOf } = useDevices();
  const sms = useLoad(() => get<SmsDetail>(`/sms/${encodeURIComponent(id)}`), [id]);
  // An MMS's subject, recipients and parts (its status is the SMS's, above).
  const mms = useLoad(() => (sms.data?.kind === 'mms' ? get<MmsView>(`/mms/${encodeURIComponent(id)}`) : Promise.resolve(undefined)), [id, sms.data?.kind]);
  const [cancelError, setCancelError] = useState<ApiError>();
  const [cancelled, setCancelled] = useState(false);
  const [cancelling, setCancelling] = useState(false);
  useLiveEvents({ 'sms.status': (event) => event.id === id && sms.reload() }, sms.reload);

  const cancel = async () => {
    setCancelling(true);
    setCancelError(undefined);
    try {
      await post(`/sms/${encodeURIComponent(id)}/cancel`);
      setCancelled(true);
    } catch (caught) {
      // 409 when a phone took it meanwhile: the reload below shows where it went.
      setCancelError(caught instanceof ApiError ? caught : new ApiError(0, 'network', String(caught)));
    } finally {
      setCancelling(false);
      sms.reload();
    }
  };

  return (
    <Page title={sms.data ? `SMS to ${sms.data.phone}` : 'SMS'} actions={<a href={href('/sms')}>All SMS</a>}>
      <Loading data={sms.data} error={sms.error}>
        {(data) => (
          <>
            {cancelled && <SuccessNotice>The SMS is cancelled.</SuccessNotice>}
            <ErrorNotice error={cancelError} />
            <div class="cards sms-detail">
              <Card title={data.kind === 'mms' ? 'MMS' : 'Message'}>
                {mms.data?.subject && <p class="mms-subject">{mms.data.subject}</p>}
                <p class="sms-text">{data.message}</p>
                {data.is_encrypted && <p class="muted">End-to-end encrypted: the recipient and the text are ciphertext the gateway cannot read.</p>}
                {data.kind === 'data' && (
                  <p class="muted">
                    Data SMS to port {data.port}: <span class="mono">{data.data}</span> (base64)
                  </p>
                )}
                {mms.data && (
                  <MmsParts label="Parts" parts={mms.data.parts.map((part) => ({ key: part.media_id, content_type: part.content_type, size: part.size, download_path: part.download_path }))} />
                )}
                <dl class="facts">
                  <dt>Status</dt>
                  <dd data-testid="sms-status">
                    <StatusBadge status={data.status} />
                    {data.reason && <span class="muted"> {data.reason}</span>}
                  </dd>
                  <dt>Kind</dt>
                  <dd>{data.kind === 'mms' ? (mms.data && mms.data.recipients.length > 1 ? 'Group MMS' : 'MMS') : data.kind === 'data' ? 'Data SMS' : 'SMS'}</dd>
                  <dt>To</dt>
                  <dd class="mono">{mms.data ? mms.data.recipients.join(', ') : data.phone}</dd>
                  <dt>Device</dt>
                  <dd>{data.device_id ? <a href={href(`/devices/${data.device_id}`)}>{nameOf(data.device_id)}</a> : 'Any device (not yet assigned)'}</dd>
                  <dt>Size</dt>
                  <dd>
                    {data.segments === null
                      ? 'Unknown: end-to-end encrypted'
                      : `${data.segments} SMS (${data.encoding ? ENCODING_LABELS[data.encoding] : '8-bit data'})`}
                  </dd>
                  <dt>Created</dt>
                  <dd>{formatTime(data.sent_at)}</dd>
                  <dt>Not before</dt>
                  <dd>{data.send_at ? formatTime(data.send_at) : 'At once'}</dd>
                  <dt>Valid until</dt>
                  <dd>{data.valid_until ? formatTime(data.valid_until) : 'No expiry'}</dd>
                  <dt>Priority</dt>
                  <dd>{data.priority}</dd>
                </dl>
                {session.canChange && data.status === 'pending' && (
                  <p>
                    <button type="button" class="button button-danger" disabled={cancelling} onClick={() => void cancel()}>
                      Cancel SMS
                    </button>
                  </p>
                )}
              </Card>
              <Card title="History">
                <SmsHistory history={data.history} wayIn={data.way_in} />
              </Card>
              <Card title="Send attempts">
                <SmsAttempts id={data.id} version={data.updated_at} nameOf={nameOf} />
              </Card>
            </div>
          </>
        )}
      </Loading>
    </Page>
  );
}
