// A user as other modules (sessions, accounts, the command line) see it.
export type Role = 'owner' | 'viewer';

export const ROLES: readonly Role[] = ['owner', 'viewer'];

export interface UserRow {
  id: string;
  account_id: string;
  email: string;
  password_hash: string;
  role: Role;
  is_admin: boolean;
  must_change_password: boolean;
  created_at: Date;
  last_login_at: Date | null;
  disabled_at: Date | null;
}
