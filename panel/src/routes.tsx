// Which page answers which panel path. Pages take the path's named parts as props.
import type { FunctionComponent } from 'preact';
import { AccountsPage } from './pages/accounts.tsx';
import { BulkPage } from './pages/bulk.tsx';
import { CallsPage } from './pages/calls.tsx';
import { ChangePasswordPage } from './pages/change-password.tsx';
import { DashboardPage } from './pages/dashboard.tsx';
import { DeviceDetailPage } from './pages/device-detail.tsx';
import { DeviceRegisterPage } from './pages/device-register.tsx';
import { DevicesPage } from './pages/devices.tsx';
import { FleetPage } from './pages/fleet.tsx';
import { IncomingPage } from './pages/incoming.tsx';
import { InboxPage } from './pages/inbox/conversations.tsx';
import { ThreadPage } from './pages/inbox/thread.tsx';
import { ContactsPage } from './pages/contacts/index.tsx';
import { KeysPage } from './pages/keys.tsx';
import { SmppPage } from './pages/smpp.tsx';
import { OptOutPage } from './pages/opt-out.tsx';
import { RetentionPage } from './pages/retention.tsx';
import { InboundRulesPage } from './pages/inbound-rules.tsx';
import { TwilioPage } from './pages/twilio.tsx';
import { SendPage } from './pages/send.tsx';
import { SmsDetailPage } from './pages/sms-detail.tsx';
import { SmsListPage } from './pages/sms-list.tsx';
import { UpstreamsPage } from './pages/upstreams/index.tsx';
import { UsersPage } from './pages/users.tsx';
import { WebhookDetailPage } from './pages/webhook-detail.tsx';
import { WebhooksPage } from './pages/webhooks.tsx';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const ROUTES: [pattern: string, page: FunctionComponent<any>][] = [
  ['/', DashboardPage],
  ['/sms', SmsListPage],
  ['/sms/:id', SmsDetailPage],
  ['/send', SendPage],
  ['/send/bulk', BulkPage],
  ['/devices', DevicesPage],
  ['/devices/new', DeviceRegisterPage],
  ['/devices/:id', DeviceDetailPage],
  ['/fleet', FleetPage],
  ['/incoming', IncomingPage],
  ['/inbox', InboxPage],
  ['/inbox/:phone', ThreadPage],
  ['/contacts', ContactsPage],
  ['/calls', CallsPage],
  ['/webhooks', WebhooksPage],
  ['/webhooks/:id', WebhookDetailPage],
  ['/keys', KeysPage],
  ['/twilio', TwilioPage],
  ['/smpp', SmppPage],
  ['/opt-out', OptOutPage],
  ['/retention', RetentionPage],
  ['/inbound-rules', InboundRulesPage],
  ['/upstreams', UpstreamsPage],
  ['/users', UsersPage],
  ['/accounts', AccountsPage],
  ['/password', ChangePasswordPage],
];
