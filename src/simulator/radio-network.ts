// The air between the simulated phones of one fleet: an SMS that a simulated phone sent (it took
// the task and reported it sent) to a number that a SIM of another phone of the fleet owns arrives
// there, with the same text, from the sender SIM's number, and that phone forwards it to the
// gateway as a real phone forwards what it receives. Canary rounds and replies between the
// account's own phones are tested this way without a real network.
//
// Drills: phones (or single SIMs) whose sent SMS never arrive, though they report them sent and
// delivered (a broken sender), and phones (or SIMs) that never hear anything (a broken receiver).
import { EventEmitter } from 'node:events';
import type { ReportStatus } from '../../agent/src/protocol/messages.ts';
import type { OutgoingSms } from '../../agent/src/radio/radio.ts';
import { simulatedNumber, type SimulatedSim } from './sim-numbers.ts';

/** What the network needs of a simulated phone (SimulatedDevice has it all). */
export interface RadioPhone {
  readonly id: string;
  /** Its SIMs with their numbers, as its heartbeat reports them. */
  readonly simCards: readonly SimulatedSim[];
  /** What its radio sent, by SMS id. */
  readonly sent: ReadonlyMap<string, OutgoingSms>;
  on(event: 'report', listener: (smsId: string, status: ReportStatus) => void): unknown;
  off(event: 'report', listener: (smsId: string, status: ReportStatus) => void): unknown;
  receive(phone: string, message: string, options?: { simSlot?: number }): Promise<string>;
}

export interface RadioNetworkOptions {
  /** Milliseconds an SMS spends in the air before it arrives; default 0. */
  airTimeMs?: number;
  /** Broken senders from the start: device ids, or "<device id>:<slot>" for one SIM. */
  brokenSenders?: Iterable<string>;
  /** Broken receivers from the start, named the same way. */
  brokenReceivers?: Iterable<string>;
}

/** Where one SMS went: from the sender's SIM to the SIM that owns the recipient's number. */
export interface Carried {
  smsId: string;
  from: { deviceId: string; simSlot: number; phone: string };
  to: { deviceId: string; simSlot: number };
}

export interface RadioNetworkEvents {
  /** The receiving phone took the SMS (its agent journaled it and, forwarding on, the gateway acknowledged it). */
  carried: [carried: Carried];
  /** A drill kept the SMS from arriving. */
  lost: [smsId: string, reason: 'broken_sender' | 'broken_receiver'];
  /** The receiving phone could not take it (its keep of unforwarded SMS was full). */
  refused: [smsId: string, error: unknown];
}

export interface RadioNetworkStats {
  /** Arrived at a phone of the fleet. */
  carried: number;
  /** Kept from arriving by a drill. */
  lost: number;
  /** Sent to a number no phone of the fleet owns: gone out of the simulation. */
  outside: number;
  /** The receiving phone could not take it. */
  refused: number;
}

/** SMS ids remembered as already carried, so that a report published again never sends twice. */
const MAX_REMEMBERED = 20_000;

interface Owner {
  phone: RadioPhone;
  simSlot: number;
}

export class RadioNetwork extends EventEmitter<RadioNetworkEvents> {
  readonly stats: RadioNetworkStats = { carried: 0, lost: 0, outside: 0, refused: 0 };
  private readonly owners = new Map<string, Owner[]>();
  private readonly reportListeners = new Map<RadioPhone, (smsId: string, status: ReportStatus) => void>();
  private readonly numbersOf = new Map<RadioPhone, string[]>();
  private readonly brokenSenders: Set<string>;
  private readonly brokenReceivers: Set<string>;
  private readonly seen = new Set<string>();
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(private readonly options: RadioNetworkOptions = {}) {
    super();
    this.brokenSenders = new Set(options.brokenSenders ?? []);
    this.brokenReceivers = new Set(options.brokenReceivers ?? []);
  }

  /** The phone's SIMs own their numbers from now on (again, with the SIMs it has now, when it joined before). */
  join(phone: RadioPhone): void {
    this.leave(phone);
    const numbers = phone.simCards.map((card) => normalized(card.phone_number ?? simulatedNumber(phone.id, card.index)));
    phone.simCards.forEach((card, i) => this.owners.set(numbers[i]!, [...(this.owners.get(numbers[i]!) ?? []), { phone, simSlot: card.index }]));
    this.numbersOf.set(phone, numbers);
    const listener = (smsId: string, status: ReportStatus) => {
      if (status === 'sent') this.carry(phone, smsId);
    };
    this.reportListeners.set(phone, listener);
    phone.on('report', listener);
  }

  leave(phone: RadioPhone): void {
    const listener = this.reportListeners.get(phone);
    if (listener) phone.off('report', listener);
    this.reportListeners.delete(phone);
    for (const number of this.numbersOf.get(phone) ?? []) {
      const rest = (this.owners.get(number) ?? []).filter((owner) => owner.phone !== phone);
      if (rest.length > 0) this.owners.set(number, rest);
      else this.owners.delete(number);
    }
    this.numbersOf.delete(phone);
  }

  /** Numbers more than one SIM of the fleet reports (simulated numbers can collide): only one of them hears what is sent there. */
  sharedNumbers(): number {
    let shared = 0;
    for (const owners of this.owners.values()) if (owners.length > 1) shared++;
    return shared;
  }

  /** A device ("<id>") or one SIM ("<id>:<slot>") whose SMS go out but never arrive; `broken` false mends it. */
  breakSender(target: string, broken = true): void {
    if (broken) this.brokenSenders.add(target);
    else this.brokenSenders.delete(target);
  }

  /** A device or one SIM that hears nothing; `broken` false mends it. */
  breakReceiver(target: string, broken = true): void {
    if (broken) this.brokenReceivers.add(target);
    else this.brokenReceivers.delete(target);
  }

  /** Stops SMS still in the air and lets go of every phone. */
  stop(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const phone of [...this.reportListeners.keys()]) this.leave(phone);
  }

  private carry(sender: RadioPhone, smsId: string): void {
    const sms = sender.sent.get(smsId);
    // Data SMS and MMS are not what a phone forwards as a received text.
    if (!sms || sms.data || sms.mms || this.seen.has(smsId)) return;
    this.remember(smsId);
    const senderSlot = sms.simSlot ?? sender.simCards[0]?.index ?? 0;
    const owners = this.owners.get(normalized(sms.phone));
    if (!owners) return void this.stats.outside++;
    if (isBroken(this.brokenSenders, sender.id, senderSlot)) return this.lose(smsId, 'broken_sender');
    // A number rings one SIM: of SIMs said to share one, the one of the lowest device id (and
    // slot), which is also the one the gateway's canary rounds keep for that number.
    const owner = owners.reduce((first, next) => (next.phone.id < first.phone.id || (next.phone.id === first.phone.id && next.simSlot < first.simSlot) ? next : first));
    if (isBroken(this.brokenReceivers, owner.phone.id, owner.simSlot)) return this.lose(smsId, 'broken_receiver');
    const from = { deviceId: sender.id, simSlot: senderSlot, phone: senderNumber(sender, senderSlot) };
    this.later(() => this.deliver(smsId, from, owner, sms.message));
  }

  private async deliver(smsId: string, from: Carried['from'], owner: Owner, text: string): Promise<void> {
    try {
      await owner.phone.receive(from.phone, text, { simSlot: owner.simSlot });
      this.stats.carried++;
      this.emit('carried', { smsId, from, to: { deviceId: owner.phone.id, simSlot: owner.simSlot } });
    } catch (error) {
      this.stats.refused++;
      this.emit('refused', smsId, error);
    }
  }

  private lose(smsId: string, reason: 'broken_sender' | 'broken_receiver'): void {
    this.stats.lost++;
    this.emit('lost', smsId, reason);
  }

  private later(run: () => Promise<void>): void {
    const airTime = this.options.airTimeMs ?? 0;
    if (airTime <= 0) return void run();
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void run();
    }, airTime);
    this.timers.add(timer);
  }

  private remember(smsId: string): void {
    this.seen.add(smsId);
    if (this.seen.size > MAX_REMEMBERED) this.seen.delete(this.seen.values().next().value!);
  }
}

function isBroken(targets: ReadonlySet<string>, deviceId: string, simSlot: number): boolean {
  return targets.size > 0 && (targets.has(deviceId) || targets.has(`${deviceId}:${simSlot}`));
}

function senderNumber(phone: RadioPhone, simSlot: number): string {
  return phone.simCards.find((card) => card.index === simSlot)?.phone_number ?? simulatedNumber(phone.id, simSlot);
}

/** A number as the network routes it: "+" and digits only. */
function normalized(phone: string): string {
  return phone.replace(/[^\d+]/g, '');
}
