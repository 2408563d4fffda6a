// Issues, lists, revokes and checks API keys. Only a hash of each key is stored; the key itself
// is returned once, at creation.
import type { Database } from '../../storage/database.ts';
import type { Logger } from '../../common/logger.ts';
import { AppError, orNotFound } from '../../common/errors.ts';
import { hashSecret, secretMatches } from '../../common/secrets.ts';
import type { Cursor } from '../../storage/paging.ts';
import { generateApiKey, keyPrefix } from './key-format.ts';
import { lackedPermissions, type Permission } from './permissions.ts';
import * as keys from './repository.ts';
import type { CacheInvalidation } from '../../cluster/invalidation.ts';

export interface AuthContext {
  accountId: string;
  keyId: string;
  permissions: ReadonlySet<Permission>;
}

/** A key lookup is cached this long; a revocation on any node (over Redis when there are several) clears it at once. */
const CACHE_TTL_MS = 5_000;
/** last_used_at is a hint for operators, written at most this often per key. */
const TOUCH_EVERY_MS = 60_000;
/** Past this many entries a map of per-key state starts afresh, so a flood of keys cannot grow it. */
const MAX_TRACKED_KEYS = 10_000;

export class ApiKeyService {
  private readonly cache = new Map<string, { row: keys.ApiKeyRow | undefined; expires: number }>();
  private readonly lastTouched = new Map<string, number>();
  /**
   * Counts revocations (by this node, or told by another). A lookup still reading the database when a revocation
   * clears the cache may hold the row as it was before: it does not cache it, or the revoked key
   * would work again for up to CACHE_TTL_MS.
   */
  private revocations = 0;

  constructor(
    private readonly db: Database,
    private readonly logger: Logger,
    private readonly invalidation?: CacheInvalidation,
  ) {}

  /** Another node revoked the key with this prefix: it stops working here at once, not when the cache runs out. */
  revokedElsewhere(prefix: string): void {
    this.revocations++;
    this.cache.delete(prefix);
  }

  /** News from other nodes may have been missed: every key is read afresh. */
  forgetCached(): void {
    this.revocations++;
    this.cache.clear();
  }

  async create(accountId: string, permissions: Permission[], name = ''): Promise<{ key: string; row: keys.ApiKeyRow }> {
    const { key, prefix } = generateApiKey();
    const row = await keys.insertApiKey(this.db, { accountId, name, prefix, secretHash: hashSecret(key), permissions });
    this.logger.info({ keyPrefix: prefix, accountId, permissions }, 'api key created');
    return { key, row };
  }

  list(accountId?: string) {
    return keys.listApiKeys(this.db, accountId);
  }

  /**
   * A key issued over HTTP by `granter`, a key of the same account: it may grant only the
   * permissions it holds itself (403 naming the ones it lacks).
   */
  async issue(granter: AuthContext, permissions: Permission[], name = ''): Promise<{ key: string; row: keys.ApiKeyRow }> {
    const lacked = lackedPermissions(granter.permissions, permissions);
    if (lacked.length > 0) {
      throw new AppError('forbidden', `a key can grant only permissions it holds; this key lacks ${lacked.join(', ')}`);
    }
    return this.create(granter.accountId, permissions, name);
  }

  /** A page of the account's keys, newest first; `revoked` filters on the state when given. */
  page(accountId: string, options: { limit: number; cursor?: Cursor; revoked?: boolean }) {
    return keys.pageApiKeys(this.db, accountId, options);
  }

  async get(accountId: string, id: string): Promise<keys.ApiKeyRow> {
    return orNotFound(keys.findAccountApiKey(this.db, accountId, id), 'key_not_found');
  }

  /** Revokes a key of any account; one already revoked is answered as it is (idempotent, as over HTTP). */
  async revoke(idOrPrefix: string): Promise<keys.ApiKeyRow | undefined> {
    const row = await keys.revokeApiKey(this.db, idOrPrefix);
    if (row) {
      this.forget(row, 'cli');
      return row;
    }
    return keys.findApiKeyByIdOrPrefix(this.db, idOrPrefix);
  }

  /** Revokes one key of the account; a key already revoked is answered as it is (idempotent). */
  async revokeInAccount(accountId: string, id: string): Promise<keys.ApiKeyRow> {
    const row = await keys.revokeAccountApiKey(this.db, accountId, id);
    if (row) {
      this.forget(row, 'http');
      return row;
    }
    return this.get(accountId, id);
  }

  /** Drops a revoked key from the caches, so this node refuses it from now on, and tells the other nodes to. */
  private forget(row: keys.ApiKeyRow, via: string): void {
    this.revocations++;
    this.cache.delete(row.prefix);
    this.lastTouched.delete(row.id);
    // The prefix is the key's public name (it is logged too), never its secret.
    this.invalidation?.publish('api_key', row.prefix);
    this.logger.info({ keyPrefix: row.prefix, accountId: row.account_id, via }, 'api key revoked');
  }

  /** The account and permissions of a presented key, or undefined when it is not a live key. */
  async authenticate(presented: string): Promise<AuthContext | undefined> {
    const prefix = keyPrefix(presented);
    if (!prefix) return undefined;
    const row = await this.lookup(prefix);
    if (!row || row.revoked_at || !secretMatches(presented, row.secret_hash)) return undefined;
    this.touch(row.id);
    return { accountId: row.account_id, keyId: row.id, permissions: new Set(row.permissions) };
  }

  private async lookup(prefix: string): Promise<keys.ApiKeyRow | undefined> {
    const now = Date.now();
    const cached = this.cache.get(prefix);
    if (cached && cached.expires > now) return cached.row;
    const revocationsBefore = this.revocations;
    const row = await keys.findApiKeyByPrefix(this.db, prefix);
    if (this.revocations !== revocationsBefore) return row;
    if (this.cache.size > MAX_TRACKED_KEYS) this.cache.clear();
    this.cache.set(prefix, { row, expires: now + CACHE_TTL_MS });
    return row;
  }

  private touch(keyId: string): void {
    const now = Date.now();
    if ((this.lastTouched.get(keyId) ?? 0) + TOUCH_EVERY_MS > now) return;
    if (this.lastTouched.size > MAX_TRACKED_KEYS) this.lastTouched.clear();
    this.lastTouched.set(keyId, now);
    keys.touchApiKey(this.db, keyId).catch((error: unknown) => this.logger.warn({ err: error }, 'could not record key use'));
  }
}
