import type { CredentialRow } from './service.ts';

export function presentCredential(row: CredentialRow) {
  return {
    account_sid: row.sid,
    friendly_name: row.friendly_name,
    sms_url: row.sms_url,
    device_ids: [...(row.device_ids ?? [])],
    auth_token_unreadable: row.auth_token_unreadable_at !== null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
