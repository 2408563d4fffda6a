// What SMPP asks of the gateway's SMS: create one through the create-SMS use case (as
// POST /sms does), read where one stands (query_sm), cancel one (cancel_sm, through the cancel
// use case). The gateway's errors become SMPP command_status codes here.
import { AppError } from '../../common/errors.ts';
import type { Executor } from '../../storage/database.ts';
import { createSms, type CreateSmsParts } from '../../use-cases/create-sms.ts';
import { cancelSms, type CancelSmsParts } from '../../use-cases/cancel-sms.ts';
import { replaceSubmittedSms, type ReplaceSmsParts, type SmsReplacementRequest } from '../../use-cases/replace-sms.ts';
import type { MessageService } from '../../modules/messages/service.ts';
import type { DevicePresence } from '../../modules/devices/presence.ts';
import type { SmppService } from '../../modules/smpp/service.ts';
import type { SmppCredential } from '../../modules/smpp/types.ts';
import { smppOutcome } from '../../modules/smpp/message-state.ts';
import { SmppRefusal, STATUS } from './command-status.ts';

export interface SubmissionParts extends CreateSmsParts, CancelSmsParts, ReplaceSmsParts {
  db: Executor;
  messages: MessageService;
  smpp: SmppService;
  presence: DevicePresence;
}

export interface SmsToSubmit {
  /** The id the ESME was already answered with (the parts of a concatenated SMS); none: a new one. */
  smsId?: string | undefined;
  sourceAddr: string;
  destination: string;
  text: string;
  sendAt?: Date | undefined;
  validUntil?: Date | undefined;
  registeredDelivery: number;
  priority: number;
  /** The data_coding it came in: a replace_sm's text is read in it. */
  dataCoding: number;
}

export interface SmsState {
  state: number;
  /** When it reached a final state; null while on its way. */
  finalDate: Date | null;
  errorCode: number;
}

export class SmppSubmissions {
  /** Which allowed device a credential's next SMS goes to, round robin among the online ones. */
  private readonly nextDevice = new Map<string, number>();

  constructor(private readonly parts: SubmissionParts) {}

  /** Stores the SMS and answers its id; an SmppRefusal says why not. */
  async submit(credential: SmppCredential, request: SmsToSubmit): Promise<string> {
    const { messages, smpp } = this.parts;
    const deviceId = this.deviceFor(credential);
    try {
      const result = await createSms(
        this.parts,
        credential.account_id,
        { key: undefined, operation: 'SMPP submit_sm', body: undefined },
        async () => {
          const prepared = await messages.prepare(credential.account_id, {
            phone: request.destination,
            phoneField: 'destination_addr',
            message: request.text,
            deviceId,
            sendAt: request.sendAt?.toISOString(),
            validUntil: request.validUntil?.toISOString(),
            priority: request.priority,
            wayIn: 'smpp',
          });
          if (request.smsId) prepared.sms.id = request.smsId;
          // Recorded before the SMS is written, so that no status change can come before it: a
          // record whose SMS then fails to be written names an id nothing will ever report on.
          await smpp.recordSubmission(this.parts.db, {
            smsId: prepared.sms.id,
            credentialId: credential.id,
            sourceAddr: request.sourceAddr,
            registeredDelivery: request.registeredDelivery,
            dataCoding: request.dataCoding,
          });
          return [prepared];
        },
        ([sms]) => ({ status: 201, body: sms!.id }),
      );
      return result.body as string;
    } catch (error) {
      throw refusalOf(error);
    }
  }

  async query(credential: SmppCredential, smsId: string): Promise<SmsState> {
    if (!UUID.test(smsId)) throw new SmppRefusal(STATUS.ESME_RINVMSGID, 'message_id is not an id the gateway gave');
    const sms = await this.parts.messages.get(credential.account_id, smsId).catch((error: unknown) => {
      throw error instanceof AppError ? new SmppRefusal(STATUS.ESME_RQUERYFAIL, 'no such SMS') : error;
    });
    const outcome = smppOutcome(sms.status, sms.reason);
    return { state: outcome.state, finalDate: outcome.final ? sms.updated_at : null, errorCode: outcome.failure ? 1 : 0 };
  }

  async cancel(credential: SmppCredential, smsId: string): Promise<void> {
    if (!UUID.test(smsId)) throw new SmppRefusal(STATUS.ESME_RINVMSGID, 'message_id is not an id the gateway gave');
    await cancelSms(this.parts, this.parts.db, credential.account_id, smsId).catch((error: unknown) => {
      throw error instanceof AppError ? new SmppRefusal(STATUS.ESME_RCANCELFAIL, error.message) : error;
    });
  }

  /** replace_sm: a new text (and schedule, validity, receipt wish) for an SMS no phone has taken. */
  async replace(credential: SmppCredential, smsId: string, request: SmsReplacementRequest): Promise<void> {
    if (!UUID.test(smsId)) throw new SmppRefusal(STATUS.ESME_RINVMSGID, 'message_id is not an id the gateway gave');
    const result = await replaceSubmittedSms(this.parts, this.parts.db, credential.account_id, smsId.toLowerCase(), request).catch((error: unknown) => {
      throw refusalOf(error);
    });
    if (result.outcome === 'unknown') throw new SmppRefusal(STATUS.ESME_RINVMSGID, 'no SMS of this account was submitted over SMPP with this message_id');
    if (result.outcome === 'source_mismatch') throw new SmppRefusal(STATUS.ESME_RINVSRCADR, 'source_addr is not the one the SMS was submitted from');
    if (result.outcome === 'taken') throw new SmppRefusal(STATUS.ESME_RREPLACEFAIL, 'a phone has taken the SMS, it has ended, or the phone holding it is offline');
  }

  private deviceFor(credential: SmppCredential): string | undefined {
    const allowed = credential.device_ids;
    if (allowed.length === 0) return undefined;
    const online = allowed.filter((id) => this.parts.presence.isOnline(id));
    const choices = online.length > 0 ? online : allowed;
    const turn = (this.nextDevice.get(credential.id) ?? 0) % choices.length;
    this.nextDevice.set(credential.id, turn + 1);
    return choices[turn];
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The gateway's reasons for refusing an SMS, as SMPP codes. */
function refusalOf(error: unknown): unknown {
  if (!(error instanceof AppError)) return error;
  const field = error.details?.[0]?.field ?? '';
  switch (error.code) {
    case 'invalid_phone':
      return new SmppRefusal(STATUS.ESME_RINVDSTADR, error.message);
    case 'message_too_long':
      return new SmppRefusal(STATUS.ESME_RINVMSGLEN, error.message);
    // The destination may not be sent to: SMPP has no code of its own for an opted-out number.
    case 'recipient_opted_out':
      return new SmppRefusal(STATUS.ESME_RX_R_APPNACK, error.message);
    case 'validation_failed':
      if (field === 'send_at') return new SmppRefusal(STATUS.ESME_RINVSCHED, error.message);
      if (field === 'valid_until' || field === 'ttl') return new SmppRefusal(STATUS.ESME_RINVEXPIRY, error.message);
      return new SmppRefusal(STATUS.ESME_RSUBMITFAIL, error.message);
    default:
      return new SmppRefusal(STATUS.ESME_RSUBMITFAIL, error.message);
  }
}
