// Opt-out: the account's suppression list, kept by the keywords its phones receive (STOP, START,
// HELP) and by the API, and the one question every way of sending asks before it stores an SMS:
// which recipients are suppressed (one query for a whole bulk send).
import type { Database, Executor } from '../../storage/database.ts';
import type { Cursor } from '../../storage/paging.ts';
import type { DomainEvents } from '../../events/domain-events.ts';
import type { OptOutEvents } from './domain-events.ts';
import type { Clock } from '../../common/clock.ts';
import { AppError, invalidField } from '../../common/errors.ts';
import { normalizePhone } from '../../common/phone.ts';
import type { IncomingSmsRow } from '../incoming/types.ts';
import { matchKeyword, type KeywordKind } from './keywords.ts';
import * as optOut from './repository.ts';
import type { OptOutReply, OptOutSettings, SuppressionChange, SuppressionRow } from './types.ts';

/** How many numbers one CSV import may carry. */
export const MAX_IMPORT_ROWS = 100_000;

export interface ImportResult {
  added: number;
  already: number;
  invalid: { line: number; message: string }[];
}

export class OptOutService {
  constructor(
    private readonly db: Database,
    private readonly events: DomainEvents<OptOutEvents>,
    private readonly clock: Clock,
    private readonly defaultPhoneRegion: string | undefined,
  ) {}

  settings(accountId: string): Promise<OptOutSettings> {
    return optOut.readSettings(this.db, accountId);
  }

  async updateSettings(accountId: string, changes: Partial<OptOutSettings>): Promise<OptOutSettings> {
    return this.db.transaction(async (trx) => {
      const settings = { ...(await optOut.readSettings(trx, accountId)), ...changes };
      await optOut.writeSettings(trx, accountId, settings);
      return settings;
    });
  }

  /** Which of the (normalized) numbers the account must not send to. */
  suppressedAmong(accountId: string, phones: string[]): Promise<Set<string>> {
    return optOut.suppressedAmong(this.db, accountId, phones);
  }

  list(accountId: string, limit: number, cursor?: Cursor, phone?: string): Promise<SuppressionRow[]> {
    return optOut.listSuppressions(this.db, accountId, limit, cursor, phone);
  }

  /** Every listed number, oldest first, a page at a time. */
  async *all(accountId: string): AsyncGenerator<SuppressionRow[]> {
    let after: Cursor | undefined;
    for (;;) {
      const rows = await optOut.suppressionsAfter(this.db, accountId, after, 1000);
      if (rows.length === 0) return;
      yield rows;
      const last = rows[rows.length - 1]!;
      after = { createdAt: last.created_at, id: last.id };
    }
  }

  /** Puts a number on the list (the API, the panel); answers its row and whether it is new. */
  async add(accountId: string, rawPhone: string): Promise<{ row: SuppressionRow; created: boolean }> {
    const phone = this.phoneOf(rawPhone, 'phone');
    return this.db.transaction(async (trx) => {
      const [added] = await this.addAll(trx, accountId, [{ phone, source: 'api', keyword: null }]);
      if (added) return { row: added, created: true };
      return { row: (await optOut.findSuppression(trx, accountId, phone))!, created: false };
    });
  }

  /** Takes a number off the list; 404 when it was not on it. */
  async remove(accountId: string, rawPhone: string): Promise<SuppressionRow> {
    const phone = this.phoneOf(rawPhone, 'phone');
    const removed = await this.db.transaction(async (trx) => {
      const row = await optOut.deleteSuppression(trx, accountId, phone);
      if (row) await this.announce(trx, [{ accountId, phone, optedOut: false, source: 'api', keyword: null, at: new Date(this.clock.now()) }]);
      return row;
    });
    if (!removed) throw new AppError('suppression_not_found');
    return removed;
  }

  /** Adds every valid number of the import; a line that is no phone number is reported, not fatal. */
  async import(accountId: string, lines: { line: number; value: string }[]): Promise<ImportResult> {
    const invalid: ImportResult['invalid'] = [];
    const phones = new Map<string, number>();
    for (const { line, value } of lines) {
      const phone = normalizePhone(value, this.defaultPhoneRegion);
      if (phone) phones.set(phone, line);
      else invalid.push({ line, message: 'not a valid phone number' });
    }
    const added = await this.db.transaction((trx) =>
      this.addAll(trx, accountId, [...phones.keys()].map((phone) => ({ phone, source: 'import' as const, keyword: null }))),
    );
    return { added: added.length, already: phones.size - added.length, invalid };
  }

  /**
   * A received SMS that is a keyword, in the transaction that stored it: a stop keyword lists the
   * sender, a start keyword unlists it, help asks for the help text. Answers nothing (and changes
   * nothing) for any other text, or while the account has opt-out handling off.
   */
  async heard(trx: Executor, sms: IncomingSmsRow): Promise<void> {
    const settings = await optOut.readSettings(trx, sms.account_id);
    if (!settings.enabled) return;
    const match = matchKeyword(sms.message, settings.extra_keywords);
    if (!match) return;
    const phone = normalizePhone(sms.phone, this.defaultPhoneRegion);
    if (!phone) return;
    const at = new Date(this.clock.now());
    if (match.kind === 'stop') {
      await this.addAll(trx, sms.account_id, [{ phone, source: 'keyword', keyword: match.keyword }], at);
    } else if (match.kind === 'start') {
      const removed = await optOut.deleteSuppression(trx, sms.account_id, phone);
      if (removed) await this.announce(trx, [{ accountId: sms.account_id, phone, optedOut: false, source: 'keyword', keyword: match.keyword, at }]);
    }
    const text = replyFor(match.kind, settings);
    if (text) {
      const reply: OptOutReply = { accountId: sms.account_id, incomingId: sms.id, deviceId: sms.device_id, simSlot: sms.sim_slot, phone, text };
      await this.events.written(trx, 'opt_out.reply_due', reply);
    }
  }

  private async addAll(trx: Executor, accountId: string, entries: { phone: string; source: SuppressionRow['source']; keyword: string | null }[], at = new Date(this.clock.now())) {
    const added = await optOut.insertSuppressions(trx, accountId, entries, at);
    await this.announce(
      trx,
      added.map((row) => ({ accountId, phone: row.phone, optedOut: true, source: row.source, keyword: row.keyword, at })),
    );
    return added;
  }

  private async announce(trx: Executor, changes: SuppressionChange[]): Promise<void> {
    if (changes.length > 0) await this.events.written(trx, 'suppressions.changed', changes);
  }

  private phoneOf(raw: string, field: string): string {
    const phone = normalizePhone(raw, this.defaultPhoneRegion);
    if (!phone) throw invalidField(field, `${field} must be a valid phone number`, 'invalid_phone');
    return phone;
  }
}

function replyFor(kind: KeywordKind, settings: OptOutSettings): string | null {
  if (kind === 'stop') return settings.stop_reply;
  if (kind === 'start') return settings.start_reply;
  return settings.help_text;
}
