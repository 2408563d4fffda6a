// What the agent needs from whatever actually sends SMS: a phone's Termux:API commands, a GSM
// modem on a serial port, or the simulator. The agent owns the protocol with the gateway, the
// journal and the order of things; a radio only sends, receives and describes itself.
import type { MmsTaskFields } from '../protocol/mms.ts';

/**
 * A radio that cannot start until someone acts: its SIM refused the PIN, asks for its PUK, or is
 * not there. Starting it again changes nothing, and with a wrong PIN each start costs one of the
 * SIM's three tries, so the command exits with a code of its own that a supervisor must not
 * restart on.
 */
export class RadioNeedsOperatorError extends Error {}

/** An SMS to hand to the radio. The radio sends it once per call; the agent never calls twice. */
export interface OutgoingSms {
  /** The gateway's SMS id, for logs and for a radio that tracks its own sends. */
  smsId: string;
  /** Recipient in E.164 (+ and digits). */
  phone: string;
  message: string;
  /** SIM slot from 0; undefined: the radio's default. */
  simSlot: number | undefined;
  /** Ask the network for a delivery report, when the radio can. */
  statusReport: boolean;
  /** A data SMS: 8-bit binary for an application port (message is then empty). Only for a radio with sendsData. */
  data?: { bytes: Buffer; port: number };
  /** An MMS: its subject, recipients and the parts the radio fetches from the gateway; absent: a text SMS. */
  mms?: Omit<MmsTaskFields, 'kind'>;
}

export type SendResult =
  | {
      ok: true;
      /** The slot it went out of, when the radio knows it. */
      simSlot?: number;
      /**
       * The message references (TP-MR) the network gave each part, in order, when delivery
       * reports were asked for and the radio can receive them; they tie a later
       * DeliveryReport to this SMS. Empty or absent: no delivery report will come.
       */
      references?: number[];
    }
  | {
      ok: false;
      /** Why, as the radio said it (a command's error, +CMS ERROR 38...). Never the message text. */
      error: string;
      /** The same as a code the gateway knows (no_service, invalid_number...; docs/delivery.md), when the radio can tell. */
      errorCode?: string;
      /** The slot it failed on, when the radio knows it. */
      simSlot?: number;
    };

/** The network's delivery report for one part, as a modem hands it over (+CDS). */
export interface DeliveryReport {
  /** The part's message reference (TP-MR), as SendResult.references gave it. */
  reference: number;
  /** The recipient the report is about, in E.164 when it is a number. */
  phone: string;
  /**
   * delivered: the part reached the phone. undelivered: the network gave up (permanent error).
   * pending: the network is still trying (a temporary error); another report follows.
   */
  outcome: 'delivered' | 'undelivered' | 'pending';
  /** The TP-Status byte's meaning, for an undelivered part. */
  error?: string;
}

/** An SMS the radio received, whole (the parts of a long SMS joined). */
export interface ReceivedSms {
  /** Stable for this SMS across restarts: a repeat is stored once by the gateway. */
  id: string;
  phone: string;
  message: string;
  receivedAt: Date;
  simSlot?: number;
  /** phone and message are already end-to-end ciphertext: forwarded as they are. */
  isEncrypted?: boolean;
}

/** A call the radio saw end. */
export interface ReceivedCall {
  /** Stable for this call across restarts. */
  id: string;
  direction: 'incoming' | 'outgoing' | 'missed';
  phone: string;
  startedAt: Date;
  durationSeconds: number;
  simSlot?: number;
}

/**
 * What the radio found of itself where it already talks to it (a send, the heartbeat's status
 * read): whether it can send now, and if not, why. The gateway hands a device whose radio cannot
 * send no new work until a heartbeat says it can again (docs/devices.md "Radio state").
 */
export interface RadioHealth {
  canSend: boolean;
  /** termux_api_unresponsive, termux_api_missing, permission_missing, no_sim, sim_locked, not_registered, modem_unresponsive. */
  problem?: string;
  /** The radio's own words for it, one line, never a message's text. */
  detail?: string;
}

/** What the heartbeat tells the gateway; a field the radio cannot know is left out. */
export interface RadioStatus {
  /** Its own state as a sender; absent: the radio does not check itself (the gateway then assumes it can send). */
  health?: RadioHealth;
  batteryLevel?: number;
  isCharging?: boolean;
  /** phone_number: the SIM's own number in international form, when the radio knows it. */
  simCards: { index: number; name_operator: string; phone_number?: string }[];
  /** Signal strength, 0-100 (a modem's +CSQ 0-31 scaled; none when unknown). */
  signalPercent?: number;
  /** The device's own name (model, or the modem's identification). */
  name?: string;
  /** android, modem... */
  type: string;
}

/**
 * What the radio hands the agent. Each returns once the agent has kept the item durably (its
 * journal); only then may the radio forget it (delete it from the SIM, move its cursor on). A
 * rejection means "keep it and hand it over again later".
 */
export interface RadioHandlers {
  incoming(sms: ReceivedSms): Promise<void>;
  delivery(report: DeliveryReport): Promise<void>;
  call(call: ReceivedCall): Promise<void>;
  /** Something the operator should know about (modem reset, a command failing): logged, never thrown. */
  problem(message: string): void;
}

/** Small values a radio keeps between runs (its read cursor...), kept by the agent in its state directory. */
export interface RadioMemory {
  get<T>(key: string): T | undefined;
  set(key: string, value: unknown): Promise<void>;
}

export interface Radio {
  /** termux, modem or simulate: for logs. */
  readonly kind: string;
  /** Whether it can send a data SMS (OutgoingSms.data); without, the agent reports data_sms_unsupported. */
  readonly sendsData?: boolean;
  /** Whether it sends MMS (fetching their parts itself); without it an MMS task fails, never going out as a text. */
  readonly sendsMms?: boolean;
  /** Opens the radio and starts handing over what it receives. */
  start(handlers: RadioHandlers, memory: RadioMemory): Promise<void>;
  /** Sends one SMS, all its parts; resolves when the radio has taken it or refused it. Never throws for a refusal. */
  send(sms: OutgoingSms): Promise<SendResult>;
  /** Battery, SIM cards, signal: read fresh for each heartbeat. */
  status(): Promise<RadioStatus>;
  /** Closes the radio; a send in progress is finished first. */
  stop(): Promise<void>;
}
