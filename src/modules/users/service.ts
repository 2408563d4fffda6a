// People who log in (the control panel): create, list, find, reset and change passwords. Roles:
// an owner may do everything in the account, a viewer only read. Passwords are hashed with
// scrypt (passwords.ts) and never logged; a generated password is returned once to the caller.
import { AppError } from '../../common/errors.ts';
import type { Logger } from '../../common/logger.ts';
import { isPostgresError, type Database } from '../../storage/database.ts';
import { generatePassword, hashPassword, verifyPassword } from './passwords.ts';
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

export class UserService {
  constructor(
    private readonly db: Database,
    private readonly logger: Logger,
  ) {}

  /** The user, and the generated one-time password when none was given. */
  async create(values: NewUser): Promise<{ user: users.UserRow; oneTimePassword?: string }> {
    const email = normalizeEmail(values.email);
    if (!EMAIL.test(email)) throw new AppError('validation_failed', 'email must be an address such as name@example.com');
    if (!users.ROLES.includes(values.role)) throw new AppError('validation_failed', `role must be one of ${users.ROLES.join(', ')}`);
    if (values.password !== undefined) checkNewPassword(values.password);
    const oneTimePassword = values.password === undefined ? generatePassword() : undefined;
    try {
      const user = await users.insertUser(this.db, {
        accountId: values.accountId,
        email,
        passwordHash: await hashPassword(values.password ?? oneTimePassword!),
        role: values.role,
        isAdmin: values.isAdmin ?? false,
        mustChangePassword: oneTimePassword !== undefined,
      });
      this.logger.info({ userId: user.id, accountId: user.account_id, role: user.role, isAdmin: user.is_admin }, 'user created');
      return { user, ...(oneTimePassword ? { oneTimePassword } : {}) };
    } catch (error) {
      if (isPostgresError(error, '23505')) throw new AppError('conflict', `a user with email "${email}" already exists`);
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

  /**
   * Sets a new password chosen by an operator, or generates a one-time one (returned). Either
   * way the user must change it at the next login: the operator knows it.
   */
  async resetPassword(email: string, password?: string): Promise<{ user: users.UserRow; oneTimePassword?: string }> {
    const user = await this.findByEmail(email);
    if (!user) throw new AppError('not_found', `no user with email "${normalizeEmail(email)}"`);
    if (password !== undefined) checkNewPassword(password);
    const oneTimePassword = password === undefined ? generatePassword() : undefined;
    const updated = await users.setPassword(this.db, user.id, await hashPassword(password ?? oneTimePassword!), true);
    this.logger.info({ userId: user.id }, 'user password reset');
    return { user: updated!, ...(oneTimePassword ? { oneTimePassword } : {}) };
  }

  /** The user's own change: the current password proves it is them. */
  async changePassword(userId: string, currentPassword: string, newPassword: string): Promise<void> {
    const user = await this.findById(userId);
    if (!user || !(await verifyPassword(currentPassword, user.password_hash))) {
      throw new AppError('validation_failed', 'current_password is wrong', [{ field: 'current_password', message: 'is wrong' }]);
    }
    checkNewPassword(newPassword, 'new_password');
    if (currentPassword === newPassword) {
      throw new AppError('validation_failed', 'new_password must differ from the current one', [{ field: 'new_password', message: 'must differ from the current one' }]);
    }
    await users.setPassword(this.db, user.id, await hashPassword(newPassword), false);
    this.logger.info({ userId: user.id }, 'user changed their password');
  }

  recordLogin(userId: string, at: Date): Promise<void> {
    return users.recordLogin(this.db, userId, at);
  }
}
