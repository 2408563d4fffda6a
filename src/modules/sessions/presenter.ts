import type { ActiveSession } from './service.ts';

export function presentSession({ session, user }: ActiveSession) {
  return {
    user: { id: user.id, email: user.email, role: user.role, is_admin: user.is_admin, must_change_password: user.must_change_password },
    csrf_token: session.csrf_token,
  };
}
