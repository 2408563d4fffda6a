// The inbox: one row per remote number, newest activity first, with its newest message either
// way and how many received SMS are unread. A received SMS moves its conversation to the top,
// live; a status change reads the page again when it concerns a message shown.
import type { Conversation } from '../../api/types.ts';
import { href } from '../../router.ts';
import { DataTable } from '../../ui/data-table.tsx';
import { CheckboxField } from '../../ui/fields.tsx';
import { Page } from '../../ui/page.tsx';
import { usePagedList } from '../../ui/use-paged-list.ts';
import { timeColumn } from '../devices/reported-columns.tsx';
import { useState } from 'preact/hooks';

export function InboxPage(_props: Record<string, string>) {
  const [unreadOnly, setUnreadOnly] = useState(false);
  const list = usePagedList<Conversation>('/conversations', { unread: unreadOnly ? 'true' : undefined }, {
    'sms.received': (_event, shown) => shown.page === 1,
    'sms.status': (event, shown) => shown.rows.some((conversation) => conversation.last_message?.id === event.id),
  });
  return (
    <Page title="Inbox">
      <form class="filters card" role="search" aria-label="Filter conversations" onSubmit={(event) => event.preventDefault()}>
        <CheckboxField label="Unread only" name="unread" checked={unreadOnly} onChecked={setUnreadOnly} />
      </form>
      <DataTable
        list={list}
        class="inbox-table"
        rowKey={(conversation) => conversation.phone}
        rowAttributes={(conversation) => ({ 'data-unread': String(conversation.unread_count) })}
        empty="No conversations yet. One starts with the first SMS sent to a number or received from it."
        columns={[
          {
            header: 'Number',
            rowHeader: true,
            class: 'mono sms-nowrap',
            cell: (conversation) => <a href={href(`/inbox/${encodeURIComponent(conversation.phone)}`)}>{conversation.phone}</a>,
          },
          {
            header: 'Unread',
            numeric: true,
            cell: (conversation) => (conversation.unread_count > 0 ? <span class="badge badge-info">{conversation.unread_count}</span> : ''),
          },
          { header: 'Last message', class: 'sms-text-cell', cell: (conversation) => lastMessage(conversation) },
          timeColumn<Conversation>('Last activity', (conversation) => conversation.last_activity_at),
        ]}
      />
    </Page>
  );
}

function lastMessage(conversation: Conversation): string {
  const last = conversation.last_message;
  if (!last) return '';
  const text = last.redacted ? '(text removed by retention)' : last.message;
  return `${last.direction === 'outgoing' ? 'You: ' : ''}${text}`;
}
