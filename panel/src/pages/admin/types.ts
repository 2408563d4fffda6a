// The shapes the webhook, key, user and account pages read from the Extended API
// (src/modules/{webhooks,api-keys,users,accounts}/schema.ts), limited to the fields shown.

export interface WebhookView {
  id: string;
  url: string;
  description: string;
  events: string[];
  enabled: boolean;
  disabled_reason: string | null;
  disabled_at: string | null;
  consecutive_failures: number;
  failing_since: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookWithSecret {
  webhook: WebhookView;
  secret: string;
}

export interface DeliveryView {
  id: string;
  event_type: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  /** The first 2 KiB of the receiver's last answer; null when it gave none. */
  last_response_body: string | null;
  /** The event as sent; null when the user may not read what it is about. */
  payload: Record<string, unknown> | null;
  next_attempt_at: string | null;
  created_at: string;
  delivered_at: string | null;
}

export interface KeyView {
  id: string;
  prefix: string;
  name: string;
  permissions: string[];
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface KeyWithSecret extends KeyView {
  key: string;
}

export type Role = 'owner' | 'viewer';

export interface UserView {
  id: string;
  email: string;
  role: Role;
  is_admin: boolean;
  must_change_password: boolean;
  disabled: boolean;
  created_at: string;
  last_login_at: string | null;
}

export interface AccountView {
  id: string;
  name: string;
  created_at: string;
  disabled: boolean;
  users: number;
  devices: number;
  /** The administrator's own account: the gateway refuses to disable it. */
  yours: boolean;
}

export interface OpenedAccount {
  account: AccountView;
  owner: UserView;
  one_time_password: string;
}
