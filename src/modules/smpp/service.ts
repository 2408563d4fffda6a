// SMPP's face to the rest of the gateway: credentials (issued with a password shown once and
// stored hashed, checked in constant time, revoked), the record of which SMS an ESME submitted,
// and the deliver_sm owed to ESMEs (delivery receipts, incoming SMS), kept as rows until the ESME
// answers, so that neither a restart nor a dropped session loses one.
import { isPostgresError, type Database, type Executor } from '../../storage/database.ts';
import type { Logger } from '../../common/logger.ts';
import type { Clock } from '../../common/clock.ts';
import { AppError, invalidField } from '../../common/errors.ts';
import { hashSecret, secretMatches } from '../../common/secrets.ts';
import type { DomainEvents } from '../../events/domain-events.ts';
import type { SmppEvents } from './domain-events.ts';
import { changesCameIn, newStatus, type SmsStatusChange } from '../delivery/status-change.ts';
import type { IncomingSmsRow } from '../incoming/types.ts';
import type { DeviceService } from '../devices/service.ts';
import type { CacheInvalidation } from '../../cluster/invalidation.ts';
import { generatePassword, generateSystemId, SYSTEM_ID_PATTERN } from './credential-format.ts';
import { receiptWanted, smppOutcome } from './message-state.ts';
import { receiptText } from './receipt-text.ts';
import { receivingAddress } from './receiving-address.ts';
import * as smpp from './repository.ts';
import { DEFAULT_ALPHABETS, type DefaultAlphabet, type PendingDeliver, type SmppCredential, type SmppSubmission } from './types.ts';

export interface CredentialRequest {
  systemId?: string | undefined;
  name?: string | undefined;
  deviceIds?: string[] | undefined;
  throughputPerSecond?: number | undefined;
  windowSize?: number | undefined;
  defaultDataCoding?: DefaultAlphabet | undefined;
}

export const DEFAULT_THROUGHPUT_PER_SECOND = 10;
export const DEFAULT_WINDOW_SIZE = 10;

/**
 * How long the record of who submitted an SMS is kept: an SMS is scheduled and valid at most a
 * year ahead of its submission, so by then it has ended and no receipt can be owed for it.
 */
const SUBMISSION_KEPT_MS = 400 * 24 * 60 * 60 * 1000;

/** A hash that matches no password: an unknown system_id costs what a wrong password does. */
const NO_MATCH = hashSecret('no such SMPP credential');

export class SmppService {
  constructor(
    private readonly db: Database,
    private readonly devices: DeviceService,
    private readonly events: DomainEvents<SmppEvents>,
    private readonly clock: Clock,
    private readonly logger: Logger,
    /** Tells the other nodes of a revocation, so that they unbind its sessions too. */
    private readonly invalidation?: CacheInvalidation,
  ) {}

  /** Issues a credential; the password is answered this once and only its hash kept. */
  async issue(accountId: string, request: CredentialRequest): Promise<{ credential: SmppCredential; password: string }> {
    const systemId = request.systemId ?? generateSystemId();
    if (!SYSTEM_ID_PATTERN.test(systemId)) {
      throw invalidField('system_id', 'system_id must be 1-15 letters, digits, dots, underscores or dashes (SMPP allows 15 characters)');
    }
    const defaultDataCoding = request.defaultDataCoding ?? 'gsm7';
    if (!DEFAULT_ALPHABETS.includes(defaultDataCoding)) {
      throw invalidField('default_data_coding', `default_data_coding must be one of ${DEFAULT_ALPHABETS.join(', ')}`);
    }
    const deviceIds: string[] = [];
    for (const [index, deviceId] of (request.deviceIds ?? []).entries()) {
      const device = await this.devices.get(accountId, deviceId).catch((error: unknown) => {
        const field = `device_ids.${index}`;
        throw error instanceof AppError ? new AppError(error.code, error.message, [{ field, message: `${field} names no device of this account` }]) : error;
      });
      deviceIds.push(device.id);
    }
    const password = generatePassword();
    const taken = () => new AppError('smpp_system_id_taken', `system_id ${systemId} is in use; choose another, or revoke the credential that holds it`);
    if (await smpp.findWorkingBySystemId(this.db, systemId)) throw taken();
    const row = await smpp
      .insertCredential(this.db, {
        accountId,
        systemId,
        passwordHash: hashSecret(password),
        name: request.name ?? '',
        deviceIds,
        throughputPerSecond: request.throughputPerSecond ?? DEFAULT_THROUGHPUT_PER_SECOND,
        windowSize: request.windowSize ?? DEFAULT_WINDOW_SIZE,
        defaultDataCoding,
      })
      .catch((error: unknown) => {
        // Two requests for one system_id at once: the unique index lets one through.
        throw isPostgresError(error, '23505') ? taken() : error;
      });
    this.logger.info({ credentialId: row.id, systemId, accountId }, 'SMPP credential issued');
    return { credential: withoutHash(row), password };
  }

  async list(accountId?: string): Promise<SmppCredential[]> {
    return (await smpp.listCredentials(this.db, accountId)).map(withoutHash);
  }

  /** Another account's credential is not found (architecture decision 6). */
  async get(accountId: string, id: string): Promise<SmppCredential> {
    const row = await smpp.findCredential(this.db, id);
    if (!row || row.account_id !== accountId) throw new AppError('smpp_credential_not_found');
    return withoutHash(row);
  }

  /** Changes its label or default alphabet; a session bound now keeps the one it bound with until it binds again. */
  async update(accountId: string, id: string, change: { name?: string | undefined; defaultDataCoding?: DefaultAlphabet | undefined }): Promise<SmppCredential> {
    await this.get(accountId, id);
    const row = await smpp.updateCredential(this.db, id, { name: change.name, default_data_coding: change.defaultDataCoding });
    if (!row) throw new AppError('smpp_credential_not_found');
    this.logger.info({ credentialId: id, defaultDataCoding: row.default_data_coding }, 'SMPP credential changed');
    return withoutHash(row);
  }

  /**
   * Revokes a credential (`accountId` undefined: any account's, for the CLI); its sessions are
   * unbound at once by whoever hears "smpp.credential_revoked". Revoking it again answers it unchanged.
   */
  async revoke(accountId: string | undefined, id: string): Promise<SmppCredential> {
    const row = await smpp.findCredential(this.db, id);
    if (!row || (accountId !== undefined && row.account_id !== accountId)) throw new AppError('smpp_credential_not_found');
    const revoked = await smpp.revokeCredential(this.db, id, accountId);
    if (!revoked) return withoutHash(row);
    this.logger.info({ credentialId: id, systemId: row.system_id }, 'SMPP credential revoked');
    this.invalidation?.publish('smpp_credential', id);
    await this.events.emit('smpp.credential_revoked', { credentialId: id, systemId: row.system_id });
    return withoutHash(revoked);
  }

  /** The working credential a bind names, when its password matches; undefined otherwise. */
  async authenticate(systemId: string, password: string): Promise<SmppCredential | undefined> {
    const row = SYSTEM_ID_PATTERN.test(systemId) ? await smpp.findWorkingBySystemId(this.db, systemId) : undefined;
    // Hashed and compared either way, so that timing does not tell a known system_id apart.
    const matches = secretMatches(password, row?.password_hash ?? NO_MATCH);
    return row && matches ? withoutHash(row) : undefined;
  }

  /** Whether the credential still works (a session asks now and then: another node may have revoked it). */
  async stillWorks(credentialId: string): Promise<boolean> {
    const row = await smpp.findCredential(this.db, credentialId);
    return row !== undefined && row.revoked_at === null;
  }

  /** Records, in the SMS's own transaction, that an ESME submitted it and what it wants to hear of it. */
  recordSubmission(trx: Executor, submission: Omit<SmppSubmission, 'submittedAt'>): Promise<void> {
    return smpp.insertSubmission(trx, submission);
  }

  submissionsOf(smsIds: string[]): Promise<SmppSubmission[]> {
    return smpp.submissionsOf(this.db, smsIds);
  }

  /** The record of an SMS one of the account's credentials submitted; undefined for any other SMS. */
  submissionOf(accountId: string, smsId: string): Promise<SmppSubmission | undefined> {
    return smpp.submissionOfAccount(this.db, smsId, accountId);
  }

  /** replace_sm changed what the ESME wants to hear of the SMS; in the replacement's transaction. */
  changeRegisteredDelivery(trx: Executor, smsId: string, registeredDelivery: number): Promise<void> {
    return smpp.updateRegisteredDelivery(trx, smsId, registeredDelivery);
  }

  /**
   * Heard in the transaction of status changes: a receipt row for each SMS an ESME submitted
   * with registered_delivery asking for this outcome. Written with the change, so it cannot be lost.
   */
  readonly receiptsFor = changesCameIn('smpp', 0, (trx, changes) => this.receiptsOfSmppChanges(trx, changes));

  /** receiptsFor, for the stored SMS submitted over SMPP: the SMS of every other way in never get here. */
  private async receiptsOfSmppChanges(trx: Executor, changes: SmsStatusChange[]): Promise<number> {
    // Only a final status can owe a receipt: most changes of SMPP's own (processing, sent) cost no query.
    const stored = changes.filter((change) => smppOutcome(newStatus(change), change.reason).final);
    if (stored.length === 0) return 0;
    const submissions = new Map((await smpp.submissionsOf(trx, stored.map((change) => change.sms.id))).map((s) => [s.smsId, s]));
    const rows: smpp.NewPendingDeliver[] = [];
    for (const change of stored) {
      const submission = submissions.get(change.sms.id);
      if (!submission) continue;
      const outcome = smppOutcome(newStatus(change), change.reason);
      if (!receiptWanted(submission.registeredDelivery, outcome)) continue;
      rows.push({
        credentialId: submission.credentialId,
        kind: 'receipt',
        // A receipt travels back: from the SMS's recipient to the ESME's source address.
        sourceAddr: change.sms.phone,
        destinationAddr: submission.sourceAddr,
        shortMessage: receiptText({
          smsId: change.sms.id,
          submittedAt: submission.submittedAt,
          doneAt: change.at,
          stat: outcome.stat,
          delivered: outcome.stat === 'DELIVRD',
          errorCode: outcome.failure ? 1 : 0,
          text: change.sms.message,
        }),
        receiptedMessageId: change.sms.id,
        messageState: outcome.state,
      });
    }
    await smpp.insertPending(trx, rows);
    return rows.length;
  }

  /** Heard in the transaction of an incoming SMS: one row for each of the account's working credentials that may hear its phone. */
  async incomingFor(trx: Executor, sms: IncomingSmsRow): Promise<number> {
    // An end-to-end encrypted SMS cannot be a deliver_sm: its sender, ciphertext, is no address
    // SMPP can carry (at most 20 characters). Its readers take it through the API or webhooks.
    if (sms.is_encrypted) return 0;
    const credentials = (await smpp.listCredentials(trx, sms.account_id)).filter(
      (row) => row.revoked_at === null && (row.device_ids.length === 0 || (sms.device_id !== null && row.device_ids.includes(sms.device_id))),
    );
    if (credentials.length === 0) return 0;
    const device = sms.device_id === null ? undefined : await this.devices.get(sms.account_id, sms.device_id, trx).catch(() => undefined);
    const receivedBy = receivingAddress(device ? (device.name_custom ?? device.name) : (sms.device_id ?? 'upstream'), sms.sim_slot);
    await smpp.insertPending(
      trx,
      credentials.map((credential) => ({
        credentialId: credential.id,
        kind: 'incoming' as const,
        sourceAddr: sms.phone,
        destinationAddr: receivedBy,
        shortMessage: sms.message,
      })),
    );
    return credentials.length;
  }

  claimPending(credentialId: string, limit: number, leaseMs: number): Promise<PendingDeliver[]> {
    return smpp.claimPending(this.db, credentialId, limit, leaseMs);
  }

  /** The ESME answered deliver_sm_resp: the row is done. */
  acknowledged(id: string): Promise<void> {
    return smpp.deletePending(this.db, id);
  }

  /** Its session ended unanswered: the next bind takes it at once. */
  release(ids: string[]): Promise<void> {
    return smpp.releasePending(this.db, ids);
  }

  countPending(): Promise<number> {
    return smpp.countPending(this.db);
  }

  /** Drops what waited past the retention time (no session of its system_id bound in time). */
  async purge(retentionMs: number): Promise<number> {
    await smpp.purgeSubmissions(this.db, new Date(this.clock.now() - SUBMISSION_KEPT_MS));
    const removed = await smpp.purgePending(this.db, new Date(this.clock.now() - retentionMs));
    if (removed > 0) this.logger.warn({ removed }, 'SMPP deliver_sm dropped: no session of their system_id took them within SMPP_RECEIPT_RETENTION');
    return removed;
  }
}

function withoutHash(row: smpp.CredentialRow): SmppCredential {
  const { password_hash: _hash, ...credential } = row;
  return { ...credential, device_ids: [...(credential.device_ids ?? [])] };
}
