// One conversation: its messages both ways, newest first, and a reply box that sends through
// the phone and SIM the conversation uses (those of its newest message with a phone). Opening
// it marks it read; a received SMS shows at once (live) and is marked read while the page is open.
import { useEffect, useState } from 'preact/hooks';
import { ApiError, get, post } from '../../api.ts';
import type { Conversation, Sms, ThreadMessage } from '../../api/types.ts';
import { href } from '../../router.ts';
import { useSession } from '../../session.tsx';
import { DataTable } from '../../ui/data-table.tsx';
import { Field } from '../../ui/fields.tsx';
import { ErrorNotice } from '../../ui/notice.tsx';
import { Page } from '../../ui/page.tsx';
import { useLoad } from '../../ui/use-load.ts';
import { usePagedList } from '../../ui/use-paged-list.ts';
import { statusLabel } from '../../ui/format.ts';
import { timeColumn } from '../devices/reported-columns.tsx';
import { SegmentCount } from '../sms/segment-count.tsx';
import { useDevices } from '../sms/use-devices.ts';

export function ThreadPage({ phone: encoded }: { phone: string }) {
  const phone = decodeURIComponent(encoded);
  const path = `/conversations/${encodeURIComponent(phone)}`;
  const session = useSession();
  const { nameOf } = useDevices();
  const conversation = useLoad(() => get<Conversation>(path), [path]);
  const thread = usePagedList<ThreadMessage>(`${path}/messages`, {}, {
    'sms.received': (_event, shown) => shown.page === 1,
    'sms.status': (event, shown) => shown.rows.some((message) => message.id === event.id),
  });
  const unread = conversation.data?.unread_count ?? 0;
  const newest = thread.rows[0]?.id;
  // Read while open: what arrives while someone looks at it is read.
  useEffect(() => {
    if (unread > 0 || thread.rows[0]?.direction === 'incoming') {
      void post(`${path}/read`).then(() => undefined, () => undefined);
    }
  }, [path, unread, newest]);

  return (
    <Page title={`Conversation with ${phone}`} actions={<a href={href('/inbox')}>All conversations</a>}>
      <ErrorNotice error={conversation.error} />
      {session.canChange && conversation.data && (
        <ReplyForm
          conversation={conversation.data}
          deviceName={nameOf(conversation.data.device_id)}
          onSent={() => {
            thread.restart();
            conversation.reload();
          }}
        />
      )}
      <DataTable
        list={thread}
        class="thread-table"
        caption={`Messages with ${phone}, newest first`}
        empty="No messages."
        rowAttributes={(message) => ({ 'data-direction': message.direction })}
        columns={[
          timeColumn<ThreadMessage>('When', (message) => message.at),
          { header: 'Direction', class: 'sms-nowrap', cell: (message) => (message.direction === 'outgoing' ? 'Sent' : 'Received') },
          { header: 'Message', class: 'sms-text-cell', cell: (message) => <MessageText message={message} /> },
          { header: 'Status', class: 'sms-nowrap', cell: (message) => (message.status ? statusLabel(message.status) : '') },
          { header: 'Phone', class: 'sms-nowrap', cell: (message) => `${nameOf(message.device_id)}${message.sim_slot !== null ? ` · SIM ${message.sim_slot + 1}` : ''}` },
        ]}
      />
    </Page>
  );
}

function ReplyForm({ conversation, deviceName, onSent }: { conversation: Conversation; deviceName: string; onSent: () => void }) {
  const [message, setMessage] = useState('');
  const [error, setError] = useState<ApiError>();
  const [busy, setBusy] = useState(false);
  const hashed = conversation.phone.startsWith('hmac:');
  const via = conversation.device_id
    ? `Sent through ${deviceName}${conversation.sim_slot !== null ? `, SIM ${conversation.sim_slot + 1}` : ''}, the phone of the newest message.`
    : 'Sent through any phone of the account (no message of this conversation has a phone yet).';

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await post<Sms>('/sms', {
        phone: conversation.phone,
        message,
        ...(conversation.device_id ? { device_id: conversation.device_id } : {}),
        ...(conversation.device_id && conversation.sim_slot !== null ? { sim_slot: conversation.sim_slot } : {}),
      });
      setMessage('');
      onSent();
    } catch (caught) {
      setError(caught instanceof ApiError ? caught : new ApiError(0, 'network', 'The gateway could not be reached.'));
    } finally {
      setBusy(false);
    }
  };

  if (hashed) return <p class="notice notice-info">This number is kept only as a hash (the account's retention setting): it cannot be answered.</p>;
  return (
    <form class="card reply-form" onSubmit={submit} noValidate aria-label="Reply to this conversation">
      <ErrorNotice error={error} />
      <Field label="Reply" error={error?.forField('message')} hint={<><SegmentCount text={message} /> · {via}</>}>
        {(aria) => <textarea {...aria} name="message" rows={3} value={message} onInput={(event) => setMessage(event.currentTarget.value)} />}
      </Field>
      <button type="submit" class="button button-primary" disabled={busy || message.length === 0}>
        {busy ? 'Sending…' : 'Send reply'}
      </button>
    </form>
  );
}

/** A message's text; a data SMS has none to show, its payload and port are on its page. */
function MessageText({ message }: { message: ThreadMessage }) {
  if (message.redacted) return <em>text removed by retention</em>;
  if (message.kind === 'data') return <a href={href(`/sms/${message.id}`)}>Data SMS (its payload and port)</a>;
  return <>{message.message}</>;
}
