// What the broker asks of the rest of the gateway, in the broker's own terms. The broker speaks
// MQTT only: it decides who may connect, publish and subscribe, and what a packet means, and hands
// everything else (credentials, rows, delivery, presence, the SMS and calls phones report) to these
// ports. The MQTT way in (src/api/mqtt/broker-ports.ts) implements them from its services; a test
// may implement them by hand.
import type { AuthAttempt } from '../src/common/auth-throttle.ts';
import type { Redis } from 'ioredis';
import type { DeviceCapabilities } from '../src/modules/devices/capabilities.ts';
import type { RadioHealth } from '../src/modules/devices/radio.ts';
// Types the modules define for what phones report, taken as they are rather than restated: a
// change there is a change of what the broker passes on, and the compiler says so here.
import type { SimCard } from '../src/modules/devices/types.ts';
import type { ReportResult } from '../src/modules/delivery/status-ingestor.ts';
import type { UssdReport, UssdReportOutcome } from '../src/modules/ussd/device-protocol.ts';

export type { SimCard };

/** What the broker knows of a device: the hash of its token, and the settings it pushes to the phone. */
export interface DeviceRecord {
  id: string;
  account_id: string;
  token_hash: string;
  name: string;
  name_custom: string | null;
  can_send_sms: boolean;
  selected_sim: number;
  notify_low_battery: boolean;
  forward_incoming_sms: boolean;
  record_calls: boolean;
  battery_level: number | null;
  sim_cards: SimCard[];
  send_window: number;
  limit_per_minute: number | null;
  limit_per_hour: number | null;
  limit_per_day: number | null;
  /** Sent to the phone as stored (docs/asyncapi.yaml, DeviceSettings). */
  quiet_hours: unknown;
  send_jitter?: unknown;
  max_send_attempts?: number | null;
}

/**
 * The account's opted-out numbers as keyed hashes, which its phones get with their settings
 * (docs/asyncapi.yaml, DeviceSettings.opted_out) and check encrypted SMS against.
 */
export interface OptedOutNumbers {
  scheme: string;
  key: string;
  hashes: string;
  count: number;
  complete: boolean;
}

/**
 * What the settings pushed to a device carry beside its own row. Given when the broker is made,
 * before the services (device-channel.ts): every settings push, from the broker or the dispatcher,
 * goes through the sessions and asks it.
 */
export interface SettingsSources {
  /** The account's list as phones get it; undefined while it is empty. */
  optedOut(accountId: string): Promise<OptedOutNumbers | undefined>;
}

export interface BrokerPorts {
  auth: ConnectAuth;
  devices: DeviceRecords;
  presence: PresencePort;
  delivery: DeliveryPort;
  inbound: InboundPort;
  /** Whether the process can take new work: a saturated one answers CONNECTs "server unavailable". */
  admission: { saturated(): boolean };
}

/** Who may connect: the failed-authentication throttle it shares with the HTTP API, and operators' API keys. */
export interface ConnectAuth {
  /** Before the credential is checked: how long (ms) the attempt is refused unchecked; 0 when it is to be checked. */
  refusedFor(attempt: AuthAttempt): number;
  /** Records a failed authentication; how long (ms) the client should wait, 0 for a plain failure. */
  failed(attempt: AuthAttempt): number;
  /** An operator's API key: its account, and whether it may watch devices (devices:monitor). */
  operatorKey(secret: string): Promise<{ accountId: string; keyId: string; mayMonitor: boolean } | undefined>;
}

/** A heartbeat as the phone reports it (broker/payloads.ts). */
export interface HeartbeatValues {
  battery_level: number;
  is_charging: boolean;
  signal_percent?: number | undefined;
  sim_cards: SimCard[];
  type?: string | undefined;
  name?: string | undefined;
  app_version?: string | undefined;
  incoming_held?: number | undefined;
  capabilities?: DeviceCapabilities | undefined;
  radio?: RadioHealth | undefined;
}

/** The devices' rows, as the broker reads and writes them. */
export interface DeviceRecords {
  /** The live device with this id now, or none (deleted, unknown). */
  find(deviceId: string): Promise<DeviceRecord | undefined>;
  /** Ids of the account's live devices: what an operator may watch. */
  ofAccount(accountId: string): Promise<string[]>;
  /**
   * Records a heartbeat of the connection that logged in with `tokenHash`, in its turn: one write
   * at a time per device, with other devices' heartbeats. `batteryBefore` is asked once it is
   * written: the level as that connection knows it then. Superseded when a newer heartbeat of the
   * device came before it was written and was written in its place (that one's caller acts on
   * the outcome); undefined once the device is deleted. Resolves once written, or superseded.
   */
  heartbeat(
    deviceId: string,
    values: HeartbeatValues,
    tokenHash: string,
    batteryBefore: () => number | null,
  ): Promise<{ recorded: DeviceRecord } | { tokenReplaced: true } | { superseded: true } | undefined>;
  /** Whether the device forwards the SMS it receives, as its settings say now. */
  forwardsIncoming(accountId: string, deviceId: string): Promise<boolean>;
  /** The device connected or disconnected now (last_seen_at). */
  seen(deviceId: string): void;
}

export type PresenceState = 'online' | 'offline';

/** Which devices are online: the broker tells what their connections do, and hears what is decided. */
export interface PresencePort {
  markActive(deviceId: string, accountId: string): void;
  /** Connected here, moved from another node: no "online" announced. */
  markMovedIn(deviceId: string, accountId: string): void;
  /** Taken over by another node: gone from here, no "offline" announced. */
  markMovedOut(deviceId: string): void;
  markDisconnected(deviceId: string): void;
  /** Every change of presence decided, and every restatement of it; returns how to stop listening. */
  watch(listener: (deviceId: string, state: PresenceState) => void): () => void;
}

export interface StatusReportInput {
  deviceId: string;
  smsId: string;
  status: 'processing' | 'sent' | 'delivered' | 'undelivered' | 'failed_send' | 'failed_delivery';
  error?: string | undefined;
  /** Machine-readable reason of a failed send (docs/delivery.md). */
  errorCode?: string | undefined;
  simSlot?: number | undefined;
}

/** What the broker tells delivery. */
export interface DeliveryPort {
  /** The device subscribed to its tasks. */
  deviceReady(device: DeviceRecord): Promise<void>;
  /** The device's connection on this node ended. */
  deviceGone(deviceId: string): void;
  simCardsChanged(deviceId: string, simCards: SimCard[]): void;
  /** A heartbeat said whether the device's radio can send (true also when it did not say). */
  radioReported(deviceId: string, canSend: boolean): void;
  /**
   * A status report from the device; resolved once applied (committed). `revoked`: the task is no
   * longer the device's to send, for `reason`.
   */
  submitReport(report: StatusReportInput): Promise<ReportResult>;
}

export interface ReceivedSms {
  deviceMessageId: string;
  phone: string;
  message: string;
  receivedAt: Date;
  simSlot: number | null;
  /** phone and message are end-to-end ciphertext from the phone, kept as they are. */
  isEncrypted: boolean;
}

export interface ReportedCall {
  deviceCallId: string;
  direction: 'incoming' | 'outgoing' | 'missed';
  phone: string;
  simSlot: number | null;
  startedAt: Date;
  durationSeconds: number;
}

/** The network's answer to a USSD request, as the phone reports it (broker/payloads.ts). */
export type UssdAnswer = UssdReport;

/** What became of a USSD answer: applied, a repeat, after its session ended, of an earlier step, or of no session of this phone. */
export type UssdAnswerOutcome = UssdReportOutcome;

export interface ReceivedMms {
  deviceMmsId: string;
  phone: string;
  recipients: string[];
  subject: string | null;
  message: string | null;
  simSlot: number | null;
  receivedAt: Date;
  parts: { id: string; contentType: string; size: number }[];
}

/** Where what phones receive goes: SMS, MMS and the call log, each stored once by the phone's own id; USSD answers. */
export interface InboundPort {
  storeSms(accountId: string, deviceId: string, sms: ReceivedSms): Promise<unknown>;
  storeCall(accountId: string, deviceId: string, call: ReportedCall): Promise<unknown>;
  storeMms(accountId: string, deviceId: string, mms: ReceivedMms): Promise<unknown>;
  /** Applies a USSD answer to the phone's session; resolved once committed. */
  reportUssd(deviceId: string, answer: UssdAnswer): Promise<UssdAnswerOutcome>;
}

/** The result of claiming a device's connection for this node: `moved` when another node held it. */
export interface DeviceClaim {
  token: string;
  moved: boolean;
}

/** What a broker shares with the brokers of the other nodes through Redis. */
export interface BrokerCluster {
  /** Aedes' message bus, reaching every node's subscribers (src/cluster/mqtt-emitter.ts). */
  mq: object;
  /** Where retained messages are kept: a Redis hash. */
  retained: { redis: Redis; key: string };
  /** Which node holds which device's connection (src/cluster/presence.ts). */
  ownership: {
    claim(deviceId: string, accountId: string): Promise<DeviceClaim>;
    release(deviceId: string, accountId: string, token: string): Promise<'released' | 'moved'>;
    stillHolds(deviceId: string, accountId: string, token: string): Promise<boolean>;
  };
}
