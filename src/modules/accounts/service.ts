// Accounts: the tenants of an instance. The CLI makes them; over HTTP only the instance
// administrator lists, opens, renames and disables them (routes.ts). A disabled account's keys
// and sessions are refused (403 account_disabled) and its users cannot log in; its rows stay.
import type { Cursor } from '../../storage/paging.ts';
import { AppError } from '../../common/errors.ts';
import type { Logger } from '../../common/logger.ts';
import { isPostgresError, type Database } from '../../storage/database.ts';
import type { UserService } from '../users/service.ts';
import type { UserRow } from '../users/types.ts';
import * as accounts from './repository.ts';
import type { CacheInvalidation } from '../../cluster/invalidation.ts';

/**
 * How long a gateway trusts what it read about an account being disabled. Every request reads
 * it, so it is cached; the gateway that disables an account refuses it at once, others on the
 * same database when Redis tells them (several nodes), or at the latest within this time.
 */
const DISABLED_CACHE_MS = 5_000;
const MAX_CACHED_ACCOUNTS = 10_000;

export interface AccountChanges {
  name?: string | undefined;
  disabled?: boolean | undefined;
  max_send_attempts?: number | undefined;
}

export class AccountService {
  private readonly disabledCache = new Map<string, { disabled: boolean; expires: number }>();

  constructor(
    private readonly db: Database,
    private readonly logger?: Logger,
    private readonly invalidation?: CacheInvalidation,
  ) {}

  /** Another node disabled or enabled the account: read afresh at its next request. */
  changedElsewhere(id: string): void {
    this.disabledCache.delete(id);
  }

  /** News from other nodes may have been missed: every account is read afresh. */
  forgetCached(): void {
    this.disabledCache.clear();
  }

  async create(name: string): Promise<accounts.AccountRow> {
    const trimmed = checkName(name);
    try {
      return await accounts.insertAccount(this.db, trimmed);
    } catch (error) {
      if (isPostgresError(error, '23505')) throw new AppError('conflict', `account "${trimmed}" already exists`);
      throw error;
    }
  }

  /**
   * A new account and its first owner, who gets a one-time password (answered once). When the
   * owner cannot be made (the email is taken), the account is removed again: nothing is left.
   */
  async open(name: string, ownerEmail: string, users: UserService): Promise<{ account: accounts.AccountSummary; owner: UserRow; oneTimePassword: string }> {
    const account = await this.create(name);
    try {
      const { user, oneTimePassword } = await users.create({ accountId: account.id, email: ownerEmail, role: 'owner' });
      this.logger?.info({ accountId: account.id, ownerId: user.id }, 'account opened');
      return { account: await this.summary(account.id), owner: user, oneTimePassword: oneTimePassword! };
    } catch (error) {
      await accounts.deleteAccount(this.db, account.id);
      throw error;
    }
  }

  async require(name: string): Promise<accounts.AccountRow> {
    const account = await accounts.findAccountByName(this.db, name);
    if (!account) throw new AppError('not_found', `no account named "${name}"`);
    return account;
  }

  /** Each account's name by its id, for lists that span accounts and name each row's owner. */
  async namesById(ids: readonly string[]): Promise<Map<string, string>> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return new Map();
    return new Map((await accounts.findAccountNames(this.db, unique)).map((account) => [account.id, account.name]));
  }

  count(): Promise<number> {
    return accounts.countAccounts(this.db);
  }

  /** A page of accounts, newest first (one row more than `limit` when there is a next page). */
  list(limit: number, cursor?: Cursor): Promise<accounts.AccountSummary[]> {
    return accounts.listAccountSummaries(this.db, { limit, ...(cursor ? { cursor } : {}) });
  }

  async summary(id: string): Promise<accounts.AccountSummary> {
    const [account] = await accounts.listAccountSummaries(this.db, { id });
    if (!account) throw new AppError('account_not_found');
    return account;
  }

  /**
   * Renames, disables or enables an account. `ownAccountId`: the administrator's own account,
   * which they may not disable (nobody could enable it again over HTTP).
   */
  async update(id: string, changes: AccountChanges, ownAccountId: string): Promise<accounts.AccountSummary> {
    if (changes.disabled === true && id === ownAccountId) {
      throw new AppError('cannot_change_self', 'an administrator cannot disable their own account');
    }
    const current = await accounts.findAccountById(this.db, id);
    if (!current) throw new AppError('account_not_found');
    const name = changes.name !== undefined ? checkName(changes.name) : undefined;
    try {
      await accounts.updateAccount(this.db, id, {
        ...(name !== undefined ? { name } : {}),
        ...(changes.disabled !== undefined ? { disabled_at: changes.disabled ? (current.disabled_at ?? new Date()) : null } : {}),
        ...(changes.max_send_attempts !== undefined ? { max_send_attempts: changes.max_send_attempts } : {}),
      });
    } catch (error) {
      if (isPostgresError(error, '23505')) throw new AppError('conflict', `account "${name}" already exists`);
      throw error;
    }
    const updated = await this.summary(id);
    this.remember(id, updated.disabled_at !== null);
    this.invalidation?.publish('account', id);
    this.logger?.info({ accountId: id, disabled: updated.disabled_at !== null }, 'account changed');
    return updated;
  }

  /**
   * Removes the account and, through the database's cascades, every row that belongs to it; the
   * files of its media and recordings are queued for removal with their rows. The caller
   * (src/use-cases/delete-account.ts) first ends what lives outside its rows (phones'
   * connections), and removes the queued files after. A deleted account counts as disabled from
   * then on, here at once and on other nodes when told, so a key or session still cached is refused.
   */
  async remove(id: string): Promise<void> {
    await accounts.deleteAccount(this.db, id);
    this.remember(id, true);
    this.invalidation?.publish('account', id);
    this.logger?.info({ accountId: id }, 'account deleted with everything in it');
  }

  /** Whether the account is disabled (or gone); read on every authenticated request, so cached briefly. */
  async isDisabled(id: string): Promise<boolean> {
    const cached = this.disabledCache.get(id);
    if (cached && cached.expires > Date.now()) return cached.disabled;
    const account = await accounts.findAccountById(this.db, id);
    const disabled = !account || Boolean(account.disabled_at);
    this.remember(id, disabled);
    return disabled;
  }

  private remember(id: string, disabled: boolean): void {
    if (this.disabledCache.size > MAX_CACHED_ACCOUNTS) this.disabledCache.clear();
    this.disabledCache.set(id, { disabled, expires: Date.now() + DISABLED_CACHE_MS });
  }
}

function checkName(name: string): string {
  const trimmed = name.trim();
  if (!/^[\w.@-]{1,64}$/.test(trimmed)) {
    throw new AppError('validation_failed', 'account name must be 1-64 letters, digits, or . _ - @', [
      { field: 'name', message: 'name must be 1-64 letters, digits, or . _ - @' },
    ]);
  }
  return trimmed;
}
