// People who log in (the control panel): create, list, find, change, disable, remove, reset and
// change passwords. Roles: an owner may do everything in the account, a viewer only read. The CLI
// and the HTTP API share these rules: an account always keeps an enabled owner, nobody disables
// or removes themself, and a caller can make nobody more powerful than itself. Passwords are
// hashed with scrypt (passwords.ts) and never logged; a generated password is returned once.
import { AppError, invalidField, orNotFound } from '../../common/errors.ts';
import type { Logger } from '../../common/logger.ts';
import { isPostgresError, type Database, type Executor } from '../../storage/database.ts';
import { lackedPermissions, ROLE_PERMISSIONS, type Permission } from '../api-keys/permissions.ts';
import type { DomainEvents } from '../../events/domain-events.ts';
import type { UsersEvents } from './domain-events.ts';
import { DEFAULT_PASSWORD_HASH_COST, generatePassword, hashPassword, verifyPassword } from './passwords.ts';
import * as users from './repository.ts';

export const MIN_PASSWORD_LENGTH = 12;
const MAX_PASSWORD_LENGTH = 256;
const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,190}$/;

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** The password a person chose: long enough to resist guessing, short enough to hash cheaply. */
export function checkNewPassword(password: string, field = 'password'): void {
  if ([...password].length < MIN_PASSWORD_LENGTH) {
    throw new AppError('validation_failed', `${field} must be at least ${MIN_PASSWORD_LENGTH} characters`, [
      { field, message: `must be at least ${MIN_PASSWORD_LENGTH} characters` },
    ]);
  }
  if (password.length > MAX_PASSWORD_LENGTH) {
    throw new AppError('validation_failed', `${field} must be at most ${MAX_PASSWORD_LENGTH} characters`, [
      { field, message: `must be at most ${MAX_PASSWORD_LENGTH} characters` },
    ]);
  }
}

export interface NewUser {
  accountId: string;
  email: string;
  role: users.Role;
  isAdmin?: boolean;
  /** None: a one-time password is generated, returned, and must be changed at first login. */
  password?: string;
}

/**
 * Who asks for a change over HTTP: what the caller may do, and the logged-in user when it is a
 * session (an API key is no user). The CLI runs as the operator and passes none.
 */
export interface Actor {
  permissions: ReadonlySet<Permission>;
  userId?: string | undefined;
}

export interface UserChanges {
  role?: users.Role | undefined;
  disabled?: boolean | undefined;
}

export class UserService {
  constructor(
    private readonly db: Database,
    private readonly logger: Logger,
    /** Hears "user.locked_out": a disabled user's, or a reset password's, sessions end with it. */
    private readonly events: DomainEvents<UsersEvents>,
    /** log2 of scrypt's N for new hashes (PASSWORD_HASH_COST). */
    readonly passwordHashCost = DEFAULT_PASSWORD_HASH_COST,
  ) {}

  /** The user, and the generated one-time password when none was given. */
  async create(values: NewUser, actor?: Actor): Promise<{ user: users.UserRow; oneTimePassword?: string }> {
    const email = normalizeEmail(values.email);
    if (!EMAIL.test(email)) throw invalidField('email', 'email must be an address such as name@example.com');
    if (!users.ROLES.includes(values.role)) throw invalidField('role', `role must be one of ${users.ROLES.join(', ')}`);
    mayActAs(actor, values.role);
    if (values.password !== undefined) checkNewPassword(values.password);
    const oneTimePassword = values.password === undefined ? generatePassword() : undefined;
    try {
      const user = await users.insertUser(this.db, {
        accountId: values.accountId,
        email,
        passwordHash: await hashPassword(values.password ?? oneTimePassword!, this.passwordHashCost),
        role: values.role,
        isAdmin: values.isAdmin ?? false,
        mustChangePassword: oneTimePassword !== undefined,
      });
      this.logger.info({ userId: user.id, accountId: user.account_id, role: user.role, isAdmin: user.is_admin }, 'user created');
      return { user, ...(oneTimePassword ? { oneTimePassword } : {}) };
    } catch (error) {
      if (isPostgresError(error, '23505')) throw new AppError('email_taken', `a user with email "${email}" already exists`);
      throw error;
    }
  }

  list(accountId?: string) {
    return users.listUsers(this.db, accountId);
  }

  findByEmail(email: string): Promise<users.UserRow | undefined> {
    return users.findUserByEmail(this.db, normalizeEmail(email));
  }

  findById(id: string): Promise<users.UserRow | undefined> {
    return users.findUserById(this.db, id);
  }

  /** A user of the account; another account's user is not found, like one that does not exist. */
  async getInAccount(accountId: string, id: string): Promise<users.UserRow> {
    return orNotFound(users.findUserInAccount(this.db, accountId, id), 'user_not_found');
  }

  /** Sets a new password (CLI), by email; see reset. */
  async resetPassword(email: string, password?: string): Promise<{ user: users.UserRow; oneTimePassword?: string }> {
    const user = await this.findByEmail(email);
    if (!user) throw new AppError('not_found', `no user with email "${normalizeEmail(email)}"`);
    return this.reset(user, password);
  }

  /** Gives a user of the account a one-time password (HTTP); see reset. */
  async resetPasswordInAccount(accountId: string, id: string, actor: Actor): Promise<{ user: users.UserRow; oneTimePassword?: string }> {
    const user = await this.getInAccount(accountId, id);
    // Whoever holds the new password can log in as the user: only as powerful as the caller.
    mayActAs(actor, user.role);
    return this.reset(user);
  }

  /** Changes a user's role or disables (or enables) them; a disabled user's sessions end at once. */
  async update(accountId: string, id: string, changes: UserChanges, actor: Actor): Promise<users.UserRow> {
    const updated = await this.db.transaction(async (trx) => {
      const user = await users.findUserInAccount(trx, accountId, id);
      if (!user) throw new AppError('user_not_found');
      if (changes.role === 'owner' && user.role !== 'owner') mayActAs(actor, 'owner');
      if (changes.disabled === true && actor.userId === user.id) throw new AppError('cannot_change_self', 'a user cannot disable themself');
      const stopsBeingAnOwner = isEnabledOwner(user) && (changes.role === 'viewer' || changes.disabled === true);
      if (stopsBeingAnOwner) await keepAnotherOwner(trx, accountId, user.id);
      const row = await users.updateUser(trx, user.id, {
        ...(changes.role !== undefined ? { role: changes.role } : {}),
        ...(changes.disabled !== undefined ? { disabled_at: changes.disabled ? (user.disabled_at ?? new Date()) : null } : {}),
      });
      if (row.disabled_at) await this.events.written(trx, 'user.locked_out', { userId: row.id });
      return row;
    });
    this.logger.info({ userId: updated.id, accountId, role: updated.role, disabled: updated.disabled_at !== null }, 'user changed');
    return updated;
  }

  /** Removes a user of the account, and with them their sessions. */
  async remove(accountId: string, id: string, actor: Actor): Promise<void> {
    await this.db.transaction(async (trx) => {
      const user = await users.findUserInAccount(trx, accountId, id);
      if (!user) throw new AppError('user_not_found');
      if (actor.userId === user.id) throw new AppError('cannot_change_self', 'a user cannot delete themself');
      if (isEnabledOwner(user)) await keepAnotherOwner(trx, accountId, user.id);
      await users.deleteUser(trx, user.id);
    });
    this.logger.info({ userId: id, accountId }, 'user removed');
  }

  /**
   * Sets a new password chosen by an operator, or generates a one-time one (returned). Either
   * way the user must change it at the next login, since the operator knows it, and the user's
   * sessions end: whoever was logged in with the old password is logged out.
   */
  private async reset(user: users.UserRow, password?: string): Promise<{ user: users.UserRow; oneTimePassword?: string }> {
    if (password !== undefined) checkNewPassword(password);
    const oneTimePassword = password === undefined ? generatePassword() : undefined;
    const hash = await hashPassword(password ?? oneTimePassword!, this.passwordHashCost);
    const updated = await this.db.transaction(async (trx) => {
      const row = await users.setPassword(trx, user.id, hash, true);
      await this.events.written(trx, 'user.locked_out', { userId: user.id });
      return row;
    });
    if (!updated) throw new AppError('user_not_found');
    this.logger.info({ userId: user.id }, 'user password reset');
    return { user: updated, ...(oneTimePassword ? { oneTimePassword } : {}) };
  }

  /** The user's own change: the current password proves it is them. */
  async changePassword(userId: string, currentPassword: string, newPassword: string): Promise<void> {
    const user = await this.findById(userId);
    if (!user || !(await verifyPassword(currentPassword, user.password_hash))) {
      throw new AppError('validation_failed', 'current_password is wrong', [{ field: 'current_password', message: 'current_password is wrong' }]);
    }
    checkNewPassword(newPassword, 'new_password');
    if (currentPassword === newPassword) {
      throw new AppError('validation_failed', 'new_password must differ from the current one', [{ field: 'new_password', message: 'new_password must differ from the current one' }]);
    }
    await users.setPassword(this.db, user.id, await hashPassword(newPassword, this.passwordHashCost), false);
    this.logger.info({ userId: user.id }, 'user changed their password');
  }

  recordLogin(userId: string, at: Date): Promise<void> {
    return users.recordLogin(this.db, userId, at);
  }
}

function isEnabledOwner(user: users.UserRow): boolean {
  return user.role === 'owner' && user.disabled_at === null;
}

/** Refuses a change that would leave the account without an enabled owner (nobody could manage it). */
async function keepAnotherOwner(trx: Executor, accountId: string, userId: string): Promise<void> {
  const owners = await users.lockEnabledOwners(trx, accountId);
  if (!owners.some((ownerId) => ownerId !== userId)) throw new AppError('last_owner');
}

/**
 * A caller may make (or become, through a password it set) only a user whose role allows no
 * more than the caller itself may do; a key cannot make an owner who holds what the key lacks.
 */
function mayActAs(actor: Actor | undefined, role: users.Role): void {
  if (!actor) return;
  const lacked = lackedPermissions(actor.permissions, [...ROLE_PERMISSIONS[role]]);
  if (lacked.length > 0) {
    throw new AppError('forbidden', `${role === 'owner' ? 'an' : 'a'} ${role} may do what the caller may not (${lacked.join(', ')}); only a caller holding all of it may do this`);
  }
}
