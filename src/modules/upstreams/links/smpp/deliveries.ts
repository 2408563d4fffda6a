// What the SMSC delivers: a deliver_sm is either a delivery receipt of an SMS the link submitted
// (esm_class says so, or the receipted_message_id / message_state TLVs do), told to the link's
// owner as a receipt, or an SMS sent to the account through the provider (MO), told as an
// incoming SMS once all its parts are in. Every deliver_sm is answered: ESME_ROK once the owner
// has taken it (or a part is held), ESME_RX_T_APPN when the owner failed or did not answer in
// time, so that the SMSC delivers it again rather than losing it.
import type { PDU } from 'smpp';
import type { Clock } from '../../../../common/clock.ts';
import { maskPhone, type Logger } from '../../../../common/logger.ts';
import type { LinkEvents, UpstreamIncoming, UpstreamReceipt } from '../link.ts';
import { STATUS } from './command-status.ts';
import { IncomingParts, type LetGo } from './incoming-parts.ts';
import { decodeIncomingText, readIncomingPart } from './incoming-text.ts';
import type { PduConnection } from './pdu-connection.ts';
import { outcomeOfStat, parseReceiptText, statOfMessageState } from './receipt-text.ts';

/** esm_class message types (SMPP 3.4 5.2.12): an SMSC delivery receipt, an intermediate notification. */
const ESM_RECEIPT = 0x04;
const ESM_INTERMEDIATE = 0x20;
const TON_INTERNATIONAL = 1;

interface Addresses {
  from: string;
  to: string;
}

export class Deliveries {
  private readonly parts: IncomingParts<Addresses>;

  constructor(
    private readonly events: LinkEvents,
    private readonly logger: Logger,
    private readonly clock: Clock,
    private readonly answerWithinMs: number,
  ) {
    this.parts = new IncomingParts(clock);
  }

  /** Incoming SMS held in parts. */
  get held(): number {
    return this.parts.size;
  }

  handle(pdu: PDU, connection: PduConnection): void {
    if (pdu.command !== 'deliver_sm') {
      // data_sm and the rest: nothing this link asked for.
      return connection.respond(pdu, STATUS.ESME_RINVCMDID);
    }
    void this.take(pdu).then(
      (status) => connection.respond(pdu, status),
      (error: Error) => {
        this.logger.warn({ err: { message: error.message } }, 'a deliver_sm could not be taken; the SMSC will send it again');
        connection.respond(pdu, STATUS.ESME_RX_T_APPN);
      },
    );
  }

  /** Lets go of incoming SMS whose parts stopped coming. */
  sweep(): void {
    for (const sms of this.parts.sweep()) void this.tellIncoming(sms).catch(() => undefined);
  }

  private async take(pdu: PDU): Promise<number> {
    // A receipt can come in the same read as the submit_sm_resp of its SMS: the turn taken here
    // lets that submit() answer its caller first, so the owner knows the id before its receipt.
    await new Promise((resolve) => setImmediate(resolve));
    const esmClass = (pdu.esm_class as number | undefined) ?? 0;
    const isReceipt = (esmClass & (ESM_RECEIPT | ESM_INTERMEDIATE)) !== 0 || pdu.receipted_message_id !== undefined || pdu.message_state !== undefined;
    return isReceipt ? this.takeReceipt(pdu) : this.takeIncoming(pdu);
  }

  private async takeReceipt(pdu: PDU): Promise<number> {
    const part = readIncomingPart(pdu);
    const fields = parseReceiptText(decodeIncomingText(part.octets, part.dataCoding, part.language));
    const providerId = (typeof pdu.receipted_message_id === 'string' && pdu.receipted_message_id !== '' ? pdu.receipted_message_id : undefined) ?? fields.id;
    const stat = (typeof pdu.message_state === 'number' ? statOfMessageState(pdu.message_state) : undefined) ?? fields.stat;
    const outcome = stat === undefined ? undefined : outcomeOfStat(stat);
    if (providerId === undefined || outcome === undefined) {
      // Answered all the same: refusing it would only have the SMSC send it again, unchanged.
      this.logger.warn({ providerId, stat }, 'a delivery receipt without a message id or a known stat was dropped');
      return STATUS.ESME_ROK;
    }
    const receipt: UpstreamReceipt = { providerId, outcome, providerStatus: stat!, errorCode: fields.err ?? null, at: new Date(this.clock.now()) };
    await this.within(this.events.receipt(receipt));
    return STATUS.ESME_ROK;
  }

  private async takeIncoming(pdu: PDU): Promise<number> {
    const part = readIncomingPart(pdu);
    const addresses: Addresses = {
      from: address(pdu.source_addr, pdu.source_addr_ton),
      to: address(pdu.destination_addr, pdu.dest_addr_ton),
    };
    if (!part.place) {
      await this.tellIncoming({ meta: addresses, text: decodeIncomingText(part.octets, part.dataCoding, part.language), complete: true, missing: 0 });
      return STATUS.ESME_ROK;
    }
    const key = `${addresses.from}\u0000${addresses.to}\u0000${part.place.reference}\u0000${part.place.total}`;
    const { completed, letGo } = this.parts.add(key, part, addresses);
    // Those let go to make room are told on the side; the part that completed an SMS is answered once the SMS is taken.
    for (const sms of letGo) void this.tellIncoming(sms).catch(() => undefined);
    if (completed) await this.tellIncoming(completed);
    return STATUS.ESME_ROK;
  }

  private async tellIncoming(sms: LetGo<Addresses>): Promise<void> {
    if (!sms.complete) this.logger.warn({ from: maskPhone(sms.meta.from), missing: sms.missing }, 'an incoming SMS in parts is passed on with parts missing');
    const incoming: UpstreamIncoming = { from: sms.meta.from, to: sms.meta.to, text: sms.text, at: new Date(this.clock.now()) };
    await this.within(this.events.incoming(incoming));
  }

  private async within(handled: void | Promise<void>): Promise<void> {
    if (!(handled instanceof Promise)) return;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`not taken within ${this.answerWithinMs} ms`)), this.answerWithinMs);
    });
    try {
      await Promise.race([handled, late]);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** An address as the gateway writes it: E.164 with its + when the SMSC says it is international. */
function address(value: unknown, ton: unknown): string {
  const text = typeof value === 'string' ? value : '';
  return ton === TON_INTERNATIONAL && /^\d+$/.test(text) ? `+${text}` : text;
}
