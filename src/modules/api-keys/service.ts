// Issues, lists, revokes and checks API keys. Only a hash of each key is stored; the key itself
// is returned once, at creation.
import type { Database } from '../../storage/database.ts';
import type { Logger } from '../../common/logger.ts';
import { hashSecret, secretMatches } from '../../common/secrets.ts';
import { generateApiKey, keyPrefix } from './key-format.ts';
import type { Permission } from './permissions.ts';
import * as keys from './repository.ts';

export interface AuthContext {
  accountId: string;
  keyId: string;
  permissions: ReadonlySet<Permission>;
}

/** A key lookup is cached this long; revocation through this process also clears it at once. */
const CACHE_TTL_MS = 5_000;
/** last_used_at is a hint for operators, written at most this often per key. */
const TOUCH_EVERY_MS = 60_000;

export class ApiKeyService {
  private readonly cache = new Map<string, { row: keys.ApiKeyRow | undefined; expires: number }>();
  private readonly lastTouched = new Map<string, number>();

  constructor(
    private readonly db: Database,
    private readonly logger: Logger,
  ) {}

  async create(accountId: string, permissions: Permission[], name = ''): Promise<{ key: string; row: keys.ApiKeyRow }> {
    const { key, prefix } = generateApiKey();
    const row = await keys.insertApiKey(this.db, { accountId, name, prefix, secretHash: hashSecret(key), permissions });
    this.logger.info({ keyPrefix: prefix, accountId, permissions }, 'api key created');
    return { key, row };
  }

  list(accountId?: string) {
    return keys.listApiKeys(this.db, accountId);
  }

  async revoke(idOrPrefix: string): Promise<keys.ApiKeyRow | undefined> {
    const row = await keys.revokeApiKey(this.db, idOrPrefix);
    if (row) {
      this.cache.delete(row.prefix);
      this.logger.info({ keyPrefix: row.prefix }, 'api key revoked');
    }
    return row;
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
    const row = await keys.findApiKeyByPrefix(this.db, prefix);
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(prefix, { row, expires: now + CACHE_TTL_MS });
    return row;
  }

  private touch(keyId: string): void {
    const now = Date.now();
    if ((this.lastTouched.get(keyId) ?? 0) + TOUCH_EVERY_MS > now) return;
    this.lastTouched.set(keyId, now);
    keys.touchApiKey(this.db, keyId).catch((error: unknown) => this.logger.warn({ err: error }, 'could not record key use'));
  }
}
