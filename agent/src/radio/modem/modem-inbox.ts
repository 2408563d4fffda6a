// What the modem receives: SMS (stored on the SIM and announced with +CMTI, or handed over
// directly with +CMT) and status reports (+CDS directly, +CDSI or a listing when stored).
//
// The SIM is the safe place for parts: a part stays there until the whole SMS was handed to the
// agent and the agent kept it, and only then is it deleted. The parts of a long SMS wait on the SIM
// for the rest, so a restart loses nothing: the listing at start (AT+CMGL=4) finds them again. What
// the modem hands over without storing (+CMT, +CDS) is kept in the radio memory until the agent
// took it. Everything runs one task at a time, so two notices never hand the same SMS over twice.
import { createHash } from 'node:crypto';
import { decodePdu, type DecodedDeliver, type DecodedPdu, type DecodedStatusReport } from '../../pdu/index.ts';
import type { DeliveryReport, RadioHandlers, RadioMemory, ReceivedSms } from '../radio.ts';
import type { AtChannel } from './at-channel.ts';
import { AtChannelClosedError, AtCommandError, AtTimeoutError } from './at-errors.ts';
import { maskPhone } from './privacy.ts';
import { parseMessageList, parseReadMessage } from './responses.ts';

export interface InboxContext {
  /** The current session's channel; undefined while the modem is being reopened. */
  channel(): AtChannel | undefined;
  handlers: RadioHandlers;
  memory: RadioMemory;
  /** +CMT / +CDS must be acknowledged with AT+CNMA. */
  needsAck(): boolean;
  /** Where AT+CMGR/CMGL/CMGD currently read; switched with AT+CPMS when a notice names another. */
  readStorage: { current: string | undefined };
  problem(message: string): void;
  /** How long the parts of a long SMS wait for the rest before they are handed over as they are. */
  incompleteTimeoutMs: number;
  /** Timeout for AT+CMGL, which can take a while on a full SIM. */
  listTimeoutMs: number;
}

type PartSource =
  | { kind: 'sim'; storage: string; index: number }
  | { kind: 'kept'; pdu: string; tpduLength: number | undefined };

interface Part {
  key: string;
  source: PartSource;
  sms: DecodedDeliver;
  firstSeenAt: number;
}

interface KeptPdu {
  pdu: string;
  tpduLength: number | undefined;
}

const KEPT_MESSAGES = 'modem.keptMessages';
const KEPT_REPORTS = 'modem.keptReports';

export class Inbox {
  private readonly parts = new Map<string, Part>();
  private readonly reportedOnce = new Set<string>();
  private work: Promise<void> = Promise.resolve();

  constructor(private readonly context: InboxContext) {
    for (const kept of this.kept(KEPT_MESSAGES)) this.acceptKept(kept);
  }

  /** +CMTI / +CDSI: something was stored at storage/index. */
  onStored(storage: string, index: number): Promise<void> {
    return this.enqueue(async () => {
      const channel = this.requireChannel();
      await this.useStorage(channel, storage);
      const stored = parseReadMessage(await channel.command(`AT+CMGR=${index}`), index);
      if (!stored) return;
      await this.accept({ kind: 'sim', storage, index }, stored.pdu, stored.tpduLength);
      await this.handOverWhatIsComplete();
    });
  }

  /** +CMT / +CDS: an SMS or a status report handed over without being stored. */
  onDirect(pdu: string, tpduLength: number | undefined): Promise<void> {
    return this.enqueue(async () => {
      const decoded = this.decode(pdu, tpduLength, 'a directly delivered PDU');
      if (decoded?.type === 'deliver') {
        await this.keep(KEPT_MESSAGES, { pdu, tpduLength });
        this.acceptKept({ pdu, tpduLength });
      } else if (decoded?.type === 'status-report') {
        if (!(await this.report(decoded))) await this.keep(KEPT_REPORTS, { pdu, tpduLength });
      }
      // Acknowledged once kept: the network would otherwise send it again.
      if (this.context.needsAck()) await this.optional(this.requireChannel(), 'AT+CNMA');
      await this.handOverWhatIsComplete();
    });
  }

  /** Lists everything stored, hands over what is complete (or waited too long), retries what the agent refused. */
  sweep(): Promise<void> {
    return this.enqueue(async () => {
      const channel = this.requireChannel();
      await this.retryKeptReports();
      const storage = this.context.readStorage.current ?? '';
      const listed = parseMessageList(await channel.command('AT+CMGL=4', { timeoutMs: this.context.listTimeoutMs }));
      const present = new Set<string>();
      for (const item of listed) {
        present.add(simKey(storage, item.index));
        await this.accept({ kind: 'sim', storage, index: item.index }, item.pdu, item.tpduLength);
      }
      // A part no longer listed was deleted by someone else: forget it.
      for (const [key, part] of this.parts) {
        if (part.source.kind === 'sim' && part.source.storage === storage && !present.has(key)) this.parts.delete(key);
      }
      await this.handOverWhatIsComplete();
    });
  }

  /** Resolves once the work queued so far is done. */
  idle(): Promise<void> {
    return this.work;
  }

  private enqueue(task: () => Promise<void>): Promise<void> {
    const run = this.work.then(task).catch((error: unknown) => {
      // A closed or hung port is the radio's to report (it reopens it); the next sweep retries.
      if (error instanceof AtChannelClosedError || error instanceof AtTimeoutError) return;
      this.context.problem(`handling received SMS failed: ${error instanceof Error ? error.message : String(error)}`);
    });
    this.work = run;
    return run;
  }

  private requireChannel(): AtChannel {
    const channel = this.context.channel();
    if (!channel) throw new AtChannelClosedError('the modem is being reopened');
    return channel;
  }

  private decode(pdu: string, tpduLength: number | undefined, where: string): DecodedPdu | undefined {
    try {
      return decodePdu(pdu, tpduLength);
    } catch (error) {
      this.once(`unreadable:${where}:${pdu.slice(0, 16)}`, `cannot read ${where}: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }
  }

  private async accept(source: Extract<PartSource, { kind: 'sim' }>, pdu: string, tpduLength: number | undefined): Promise<void> {
    const key = simKey(source.storage, source.index);
    const decoded = this.decode(pdu, tpduLength, `the stored message ${key} (left on the SIM)`);
    if (decoded?.type === 'deliver') {
      this.parts.set(key, { key, source, sms: decoded, firstSeenAt: this.parts.get(key)?.firstSeenAt ?? Date.now() });
    } else if (decoded?.type === 'status-report') {
      if (await this.report(decoded)) await this.deleteStored(source);
    }
    // A SUBMIT is an SMS someone stored to send: not ours to hand over or delete.
  }

  private acceptKept(kept: KeptPdu): void {
    const decoded = this.decode(kept.pdu, kept.tpduLength, 'a kept PDU');
    if (decoded?.type !== 'deliver') return;
    const key = `kept:${createHash('sha256').update(kept.pdu).digest('hex').slice(0, 16)}`;
    const source: PartSource = { kind: 'kept', ...kept };
    this.parts.set(key, { key, source, sms: decoded, firstSeenAt: this.parts.get(key)?.firstSeenAt ?? Date.now() });
  }

  /** Hands a status report to the agent; false when the agent did not take it. */
  private async report(decoded: DecodedStatusReport): Promise<boolean> {
    const report: DeliveryReport = {
      reference: decoded.messageReference,
      phone: decoded.recipient.value,
      outcome: decoded.outcome,
      ...(decoded.outcome === 'undelivered' ? { error: decoded.reason } : {}),
    };
    try {
      await this.context.handlers.delivery(report);
      return true;
    } catch {
      this.once(`report:${decoded.messageReference}:${decoded.dischargeTime.getTime()}`,
        `the agent did not take a delivery report (reference ${decoded.messageReference}); it is handed over again later`);
      return false;
    }
  }

  private async retryKeptReports(): Promise<void> {
    const kept = this.kept(KEPT_REPORTS);
    if (kept.length === 0) return;
    const remaining: KeptPdu[] = [];
    for (const item of kept) {
      const decoded = this.decode(item.pdu, item.tpduLength, 'a kept status report');
      if (decoded?.type === 'status-report' && !(await this.report(decoded))) remaining.push(item);
    }
    await this.context.memory.set(KEPT_REPORTS, remaining);
  }

  private async handOverWhatIsComplete(): Promise<void> {
    for (const group of this.groups()) {
      const sequences = new Set(group.map((part) => part.sms.concatenation?.sequence ?? 1));
      const total = group[0]!.sms.concatenation?.total ?? 1;
      const complete = sequences.size >= total;
      const waitedTooLong = Date.now() - Math.min(...group.map((part) => part.firstSeenAt)) > this.context.incompleteTimeoutMs;
      if (complete || waitedTooLong) await this.handOver(group, total, complete);
    }
  }

  /** Parts by the SMS they belong to: sender, reference (and its size) and total. */
  private groups(): Part[][] {
    const groups = new Map<string, Part[]>();
    for (const part of this.parts.values()) {
      const concatenation = part.sms.concatenation;
      const key = concatenation
        ? `${part.sms.sender.type}:${part.sms.sender.value}|${concatenation.referenceBits}:${concatenation.reference}|${concatenation.total}`
        : `single|${part.key}`;
      groups.set(key, [...(groups.get(key) ?? []), part]);
    }
    return [...groups.values()];
  }

  private async handOver(group: Part[], total: number, complete: boolean): Promise<void> {
    const bySequence = new Map<number, Part>();
    for (const part of [...group].sort((a, b) => a.key.localeCompare(b.key))) {
      const sequence = part.sms.concatenation?.sequence ?? 1;
      if (!bySequence.has(sequence)) bySequence.set(sequence, part);
    }
    const texts: string[] = [];
    // A part that never came is marked where it was missing rather than silently closed up.
    for (let sequence = 1; sequence <= total; sequence++) texts.push(bySequence.get(sequence)?.sms.text ?? '…');
    const first = [...bySequence.values()];
    const sender = first[0]!.sms.sender.value;
    const receivedAt = new Date(Math.min(...first.map((part) => part.sms.serviceCentreTime.getTime())));
    const message = texts.join('');
    const sms: ReceivedSms = { id: smsId(first[0]!.sms, receivedAt, message), phone: sender, message, receivedAt, simSlot: 0 };
    try {
      await this.context.handlers.incoming(sms);
    } catch {
      this.once(`incoming:${sms.id}`, `the agent did not take an SMS from ${maskPhone(sender)}; it stays and is handed over again later`);
      return;
    }
    if (!complete) {
      this.context.problem(`an SMS from ${maskPhone(sender)} stayed incomplete (${bySequence.size} of ${total} parts); handed over without the missing parts`);
    }
    // Every copy goes, duplicates of a part included.
    for (const part of group) await this.forget(part);
  }

  private async forget(part: Part): Promise<void> {
    this.parts.delete(part.key);
    if (part.source.kind === 'sim') await this.deleteStored(part.source);
    else {
      const { pdu } = part.source;
      await this.context.memory.set(KEPT_MESSAGES, this.kept(KEPT_MESSAGES).filter((kept) => kept.pdu !== pdu));
    }
  }

  private async deleteStored(source: { storage: string; index: number }): Promise<void> {
    const channel = this.requireChannel();
    await this.useStorage(channel, source.storage);
    try {
      await channel.command(`AT+CMGD=${source.index}`);
    } catch (error) {
      if (!(error instanceof AtCommandError)) throw error;
      // Left on the SIM: the next listing hands it over again, under the same id, which the gateway stores once.
      this.context.problem(`could not delete the handed-over message ${simKey(source.storage, source.index)}: ${error.description}`);
    }
  }

  private async useStorage(channel: AtChannel, storage: string): Promise<void> {
    if (!storage || storage === this.context.readStorage.current) return;
    await channel.command(`AT+CPMS="${storage}"`);
    this.context.readStorage.current = storage;
  }

  private async optional(channel: AtChannel, command: string): Promise<void> {
    try {
      await channel.command(command);
    } catch (error) {
      if (!(error instanceof AtCommandError)) throw error;
    }
  }

  private kept(key: string): KeptPdu[] {
    return this.context.memory.get<KeptPdu[]>(key) ?? [];
  }

  private async keep(key: string, item: KeptPdu): Promise<void> {
    const list = this.kept(key);
    if (!list.some((kept) => kept.pdu === item.pdu)) await this.context.memory.set(key, [...list, item]);
  }

  /** A problem that would repeat at every sweep is reported once per run. */
  private once(key: string, message: string): void {
    if (this.reportedOnce.has(key)) return;
    this.reportedOnce.add(key);
    this.context.problem(message);
  }
}

function simKey(storage: string, index: number): string {
  return `${storage || 'storage'}:${index}`;
}

/** The same SMS read again (after a restart, or when a delete failed) gets the same id. */
function smsId(first: DecodedDeliver, receivedAt: Date, message: string): string {
  const concatenation = first.concatenation;
  const hash = createHash('sha256')
    .update([first.sender.value, receivedAt.toISOString(), concatenation ? `${concatenation.referenceBits}:${concatenation.reference}:${concatenation.total}` : '', message].join('\n'))
    .digest('hex');
  return `modem-${hash.slice(0, 32)}`;
}
