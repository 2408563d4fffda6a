import { AppError } from '../../common/errors.ts';
import { isPostgresError, type Database } from '../../storage/database.ts';
import * as accounts from './repository.ts';

export class AccountService {
  constructor(private readonly db: Database) {}

  async create(name: string): Promise<accounts.AccountRow> {
    const trimmed = name.trim();
    if (!/^[\w.@-]{1,64}$/.test(trimmed)) {
      throw new AppError('validation_failed', 'account name must be 1-64 letters, digits, or . _ - @');
    }
    try {
      return await accounts.insertAccount(this.db, trimmed);
    } catch (error) {
      if (isPostgresError(error, '23505')) throw new AppError('conflict', `account "${trimmed}" already exists`);
      throw error;
    }
  }

  async require(name: string): Promise<accounts.AccountRow> {
    const account = await accounts.findAccountByName(this.db, name);
    if (!account) throw new AppError('not_found', `no account named "${name}"`);
    return account;
  }

  count(): Promise<number> {
    return accounts.countAccounts(this.db);
  }
}
