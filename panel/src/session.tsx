// The logged-in user, as GET /session tells it, shared with every page. Owners change things,
// viewers only read: pages ask `canChange` rather than testing roles themselves.
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { SessionUser, SessionView } from './api/types.ts';

export type { SessionUser, SessionView };

export interface Session {
  user: SessionUser;
  /** Owners may change anything in the account; viewers read. */
  canChange: boolean;
  /** Reloads the session (after a password change). */
  refresh(): Promise<void>;
  logout(): Promise<void>;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a logged-in panel');
  return session;
}
