// Logged-in sessions of users (the control panel). The cookie carries a random 32-byte token;
// the database keeps only its SHA-256, a CSRF token, and two ends: an idle one (last activity +
// the idle timeout) and an absolute one (login + the maximum age). Time comes from the gateway's
// clock, so tests move it instead of waiting.
import type { Clock } from '../../common/clock.ts';
import type { Logger } from '../../common/logger.ts';
import { hashSecret, randomToken } from '../../common/secrets.ts';
import type { Database, Executor } from '../../storage/database.ts';
import { dummyPasswordHash, verifyPassword } from '../users/passwords.ts';
import type { UserRow } from '../users/types.ts';
import type { UserService } from '../users/service.ts';
import * as sessions from './repository.ts';

export interface SessionLimits {
  idleTimeoutMs: number;
  maxAgeMs: number;
}

export interface ActiveSession {
  session: sessions.SessionRow;
  user: UserRow;
}

/** last_seen_at is written at most this often per session: a page's bursts cost one write. */
const TOUCH_EVERY_MS = 10_000;

export class SessionService {
  constructor(
    private readonly db: Database,
    private readonly users: UserService,
    private readonly limits: SessionLimits,
    private readonly clock: Clock,
    private readonly logger: Logger,
    /** Users of a disabled account cannot log in; none: accounts are never disabled. */
    private readonly accounts?: { isDisabled(accountId: string): Promise<boolean> },
  ) {}

  /**
   * A new session for the right email and password; undefined otherwise, the same answer for an
   * unknown email and a wrong password (and about the same time: a hash is checked either way).
   */
  async login(email: string, password: string, address: string | undefined): Promise<{ token: string } & ActiveSession | undefined> {
    const user = await this.users.findByEmail(email);
    const matches = await verifyPassword(password, user?.password_hash ?? (await dummyPasswordHash(this.users.passwordHashCost)));
    // A disabled user, or one of a disabled account, gets the answer of a wrong password: no hint.
    if (!user || !matches || user.disabled_at || (await this.accounts?.isDisabled(user.account_id))) return undefined;
    const token = randomToken(32);
    const now = this.clock.now();
    const session = await sessions.insertSession(this.db, {
      tokenHash: hashSecret(token),
      csrfToken: randomToken(32),
      userId: user.id,
      now: new Date(now),
      expiresAt: new Date(now + this.limits.maxAgeMs),
      address,
    });
    await this.users.recordLogin(user.id, new Date(now));
    // A session that ended unseen (its browser never came back) would stay forever otherwise.
    await sessions.deleteEndedSessions(this.db, user.id, new Date(now), new Date(now - this.limits.idleTimeoutMs));
    this.logger.info({ userId: user.id, sessionId: session.id }, 'user logged in');
    return { token, session, user };
  }

  /** The live session of a cookie token; an ended one is deleted and gives undefined. */
  async authenticate(token: string): Promise<ActiveSession | undefined> {
    if (token.length === 0 || token.length > 100) return undefined;
    const found = await sessions.findSession(this.db, hashSecret(token));
    if (!found) return undefined;
    const now = this.clock.now();
    const idleEnd = found.session.last_seen_at.getTime() + this.limits.idleTimeoutMs;
    if (now >= idleEnd || now >= found.session.expires_at.getTime() || found.user.disabled_at) {
      await sessions.deleteSession(this.db, found.session.id);
      return undefined;
    }
    if (now - found.session.last_seen_at.getTime() >= TOUCH_EVERY_MS) {
      await sessions.touchSession(this.db, found.session.id, new Date(now));
    }
    return found;
  }

  async logout(sessionId: string): Promise<void> {
    await sessions.deleteSession(this.db, sessionId);
  }

  /** Ends every session of the user, in `trx` (the user was disabled, or their password reset). */
  endAllOf(trx: Executor, userId: string): Promise<void> {
    return sessions.deleteUserSessions(trx, userId);
  }

  /** The user's own password change; the user's other sessions end (whoever knew the old one). */
  async changePassword(active: ActiveSession, currentPassword: string, newPassword: string): Promise<void> {
    await this.users.changePassword(active.user.id, currentPassword, newPassword);
    await sessions.deleteOtherSessions(this.db, active.user.id, active.session.id);
  }
}
