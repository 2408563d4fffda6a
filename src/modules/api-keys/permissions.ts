// Every permission a key can hold. A key carries a set of them; each operation names the one
// it needs. Later features use the ones reserved here.
export const PERMISSIONS = [
  'sms:send',
  'sms:read',
  'sms:delete',
  'devices:read',
  'devices:settings',
  'devices:write',
  'devices:monitor',
  'webhooks:read',
  'webhooks:write',
  // Create, list and revoke the account's keys over HTTP; a key grants only what it holds itself.
  'keys:manage',
  // List, create, change, reset and remove the account's users (the people who log in).
  'users:manage',
  // The call log and its recordings (record_calls): read them, and delete a call with its audio.
  'calls:read',
  'calls:delete',
  // Sends that skip the suppression list (one-time codes, security alerts: messages a recipient
  // cannot opt out of). Only a key's sends: a panel session's are always checked.
  'sms:send_transactional',
  // The account's suppression list and opt-out settings: read them, and change them.
  'suppressions:read',
  'suppressions:write',
  // Rules applied to received SMS: read them (with their hit counts), and change or reorder them.
  'inbound_rules:read',
  'inbound_rules:write',
  // The account's upstream providers and its routes (when SMS leave through a provider instead of
  // its phones): read them, and change them. The providers' secrets are never shown.
  'upstreams:read',
  'upstreams:write',
] as const;

export type Permission = (typeof PERMISSIONS)[number];

/**
 * Granted only when named: "all" (keys create --permissions all, the first-start key) leaves them
 * out, so a key never sends past the suppression list unless someone chose that for it.
 */
export const NAMED_ONLY: readonly Permission[] = ['sms:send_transactional'];

/** Every permission but the ones granted only when named. */
export const ALL_ORDINARY: readonly Permission[] = PERMISSIONS.filter((permission) => !NAMED_ONLY.includes(permission));

export function isPermission(value: string): value is Permission {
  return (PERMISSIONS as readonly string[]).includes(value);
}

/** What a logged-in user's role allows: an owner everything, a viewer only what reads. */
export const ROLE_PERMISSIONS: Readonly<Record<'owner' | 'viewer', ReadonlySet<Permission>>> = {
  owner: new Set(PERMISSIONS),
  viewer: new Set(PERMISSIONS.filter((permission) => permission.endsWith(':read'))),
};

/** Parses "a,b,c" (or "all"); returns the permissions or the names that are not permissions. */
export function parsePermissionList(raw: string): { permissions: Permission[]; unknown: string[] } {
  const names = raw.split(',').map((name) => name.trim()).filter(Boolean);
  if (names.length === 1 && names[0] === 'all') return { permissions: [...ALL_ORDINARY], unknown: [] };
  const unknown = names.filter((name) => !isPermission(name));
  return { permissions: [...new Set(names.filter(isPermission))], unknown };
}

/** The permissions in `wanted` that `held` lacks: a key may grant only what it holds (no escalation). */
export function lackedPermissions(held: ReadonlySet<Permission>, wanted: readonly Permission[]): Permission[] {
  return wanted.filter((permission) => !held.has(permission));
}
