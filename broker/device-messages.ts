// Consumes what devices publish: status reports, heartbeats, presence, received SMS and calls. Runs
// in Aedes' `published` hook, on the node that received the message (architecture pitfalls). For a
// QoS 2 publish Aedes sends PUBREC only after this hook completes, so reports, received SMS and
// calls, which devices send with QoS 2, are acknowledged only once committed. (Aedes acknowledges
// QoS 1 on receipt; a QoS 1 report lost in a crash is recovered when the task is re-driven.)
//
// Through a database outage nothing here fails the hook (a failed hook makes Aedes close the
// device's connection): reports, received SMS and calls are held and retried until they commit, up to
// MAX_HOLD_MS; heartbeats, acknowledged already, are dropped (the next one replaces them).
// Heartbeats are written many devices at a time, a few writes at once (the devices' port), never
// with every connection of the pool.
import type { Logger } from '../src/common/logger.ts';
import type { Metrics } from '../src/common/metrics.ts';
import { OutageNotice } from '../src/common/outage-notice.ts';
import { Backoff } from '../src/storage/database-errors.ts';
import { MAX_HOLD_MS } from '../src/modules/delivery/status-ingestor.ts';
import type { BrokerPorts, DeviceRecords } from './ports.ts';
import { decodeCallReport, decodeHeartbeat, decodeIncomingSms, decodeMmsReport, decodePresence, decodeStatusReport, decodeUssdReport, incomingSmsProblem } from './payloads.ts';
import type { DeviceIdentity } from './identity.ts';
import { checkSimNumbers } from './heartbeat-numbers.ts';
import { checkRadio } from './heartbeat-radio.ts';
import type { DeviceToGateway } from './topics.ts';

export const REJECTED_METRIC = 'device_messages_rejected_total';
const REJECTED_HELP = 'device messages refused or ignored, by reason';
export class DeviceMessages {
  private readonly outage: OutageNotice;

  constructor(
    private readonly ports: Pick<BrokerPorts, 'presence' | 'delivery' | 'devices' | 'inbound'>,
    private readonly metrics: Metrics,
    private readonly logger: Logger,
    /** The presence report "offline" (last will) from the device's current connection. */
    private readonly onOfflineReport: (identity: DeviceIdentity) => void,
    /** Tells the device to drop a task (docs/asyncapi.yaml, message TaskRevoked). */
    private readonly revoke: (deviceId: string, smsId: string, reason: string) => Promise<void>,
    /** The device's token was replaced after this connection logged in with the old one. */
    private readonly onTokenReplaced: (identity: DeviceIdentity) => void,
  ) {
    this.outage = new OutageNotice(logger, 'heartbeats dropped, received SMS held');
  }

  rejected(deviceId: string, reason: string, detail?: string): void {
    this.metrics.count(REJECTED_METRIC, REJECTED_HELP, { reason });
    this.logger.warn({ deviceId, reason, ...(detail ? { detail } : {}) }, 'device message rejected');
  }

  /** One handler per device-to-gateway topic: a topic added to DEVICE_TO_GATEWAY without one does not compile. */
  private readonly handlers: Record<DeviceToGateway, (identity: DeviceIdentity, payload: Buffer) => Promise<void>> = {
    status: (identity, payload) => this.status(identity, payload),
    heartbeat: (identity, payload) => this.heartbeat(identity, payload),
    presence: (identity, payload) => this.presence(identity, payload),
    incoming: (identity, payload) => this.incoming(identity, payload),
    calls: (identity, payload) => this.call(identity, payload),
    ussd_status: (identity, payload) => this.ussd(identity, payload),
    mms: (identity, payload) => this.mms(identity, payload),
  };

  async handle(identity: DeviceIdentity, kind: DeviceToGateway, payload: Buffer): Promise<void> {
    // Any message is a sign of life, except a presence report: "offline" is the last will, sent
    // by the broker for a connection that has just died.
    if (kind !== 'presence') this.ports.presence.markActive(identity.deviceId, identity.accountId);
    return this.handlers[kind](identity, payload);
  }

  private async status(identity: DeviceIdentity, payload: Buffer): Promise<void> {
    const report = decodeStatusReport(payload);
    if (!report.ok) return this.rejected(identity.deviceId, 'invalid_payload', report.reason);
    const { outcome, reason } = await this.ports.delivery.submitReport({
      deviceId: identity.deviceId,
      smsId: report.value.sms_id,
      status: report.value.status,
      error: report.value.error,
      errorCode: report.value.error_code,
      simSlot: report.value.sim_slot,
    });
    this.metrics.count('status_reports_total', 'device status reports, by outcome', { outcome });
    // A report for an SMS the device does not hold: unknown, or another device's.
    if (outcome === 'rejected') this.rejected(identity.deviceId, 'unknown_sms');
    // Published before this report's acknowledgement completes (its PUBREC waits for this
    // hook): a phone that sends only once its acknowledgement completed hears this first.
    if (outcome === 'revoked') await this.revoke(identity.deviceId, report.value.sms_id, reason ?? 'revoked');
  }

  /**
   * Heartbeats are acknowledged on receipt (QoS 1), so two of one device can be in hand at once;
   * their writes take their turn one at a time per device, and of those that waited meanwhile only
   * the newest is written and acted on. A QoS 2 heartbeat's hook ends once it is written.
   */
  private async heartbeat(identity: DeviceIdentity, payload: Buffer): Promise<void> {
    const decoded = decodeHeartbeat(payload);
    if (!decoded.ok) return this.rejected(identity.deviceId, 'invalid_payload', decoded.reason);
    const { heartbeat: numbered, dropped } = checkSimNumbers(decoded.value);
    for (const detail of dropped) this.rejected(identity.deviceId, 'invalid_field', detail);
    const radio = checkRadio(numbered);
    if (radio.dropped) this.rejected(identity.deviceId, 'invalid_field', radio.dropped);
    const heartbeat = { ...numbered, radio: radio.radio };
    const canSend = radio.radio?.can_send !== false;
    let outcome: Awaited<ReturnType<DeviceRecords['heartbeat']>>;
    const startedAt = Date.now();
    try {
      outcome = await this.ports.devices.heartbeat(identity.deviceId, heartbeat, identity.tokenHash, () => identity.device.battery_level);
      this.outage.succeeded(startedAt);
    } catch (error) {
      if (!this.outage.failed(error)) throw error;
      // Counted, not logged: the outage is logged once, not once per device and heartbeat.
      this.metrics.count(REJECTED_METRIC, REJECTED_HELP, { reason: 'database_unavailable' });
      return;
    }
    if (!outcome || 'superseded' in outcome) return;
    if ('tokenReplaced' in outcome) return this.onTokenReplaced(identity);
    const device = outcome.recorded;
    identity.device = device;
    this.ports.delivery.simCardsChanged(device.id, device.sim_cards);
    this.ports.delivery.radioReported(device.id, canSend);
  }

  private async presence(identity: DeviceIdentity, payload: Buffer): Promise<void> {
    const state = decodePresence(payload);
    if (!state.ok) return this.rejected(identity.deviceId, 'invalid_payload', state.reason);
    if (state.value === 'offline') this.onOfflineReport(identity);
  }

  private async incoming(identity: DeviceIdentity, payload: Buffer): Promise<void> {
    const sms = decodeIncomingSms(payload);
    if (!sms.ok) return this.rejected(identity.deviceId, 'invalid_payload', sms.reason);
    const problem = incomingSmsProblem(sms.value);
    if (problem) return this.rejected(identity.deviceId, 'invalid_payload', problem);
    await this.whileForwarding(identity, () =>
      this.ports.inbound.storeSms(identity.accountId, identity.deviceId, {
        deviceMessageId: sms.value.id,
        phone: sms.value.phone,
        message: sms.value.message,
        receivedAt: new Date(sms.value.received_at),
        simSlot: sms.value.sim_slot ?? null,
        isEncrypted: sms.value.is_encrypted ?? false,
      }),
    );
  }

  /**
   * What a phone received (SMS, MMS) is kept only while it forwards what it receives
   * (forward_incoming_sms), read now: the setting may have changed since it connected, and
   * received messages are rare. Stored by the phone's own id for it: a retry after a lost commit
   * stores it once.
   */
  private async whileForwarding(identity: DeviceIdentity, store: () => Promise<unknown>): Promise<void> {
    const forwards = await this.untilCommitted(() => this.ports.devices.forwardsIncoming(identity.accountId, identity.deviceId));
    if (!forwards) return this.rejected(identity.deviceId, 'forwarding_off');
    await this.untilCommitted(store);
  }

  /**
   * The call log is kept whatever record_calls says: that setting is about recording the audio
   * (uploaded over HTTP), not about the phone's list of calls.
   */
  private async call(identity: DeviceIdentity, payload: Buffer): Promise<void> {
    const call = decodeCallReport(payload);
    if (!call.ok) return this.rejected(identity.deviceId, 'invalid_payload', call.reason);
    // Stored by the phone's own call id: a retry after a lost commit stores it once.
    await this.untilCommitted(() =>
      this.ports.inbound.storeCall(identity.accountId, identity.deviceId, {
        deviceCallId: call.value.id,
        direction: call.value.direction,
        phone: call.value.phone,
        simSlot: call.value.sim_slot ?? null,
        startedAt: new Date(call.value.started_at),
        durationSeconds: call.value.duration_seconds ?? 0,
      }),
    );
  }

  /** A received MMS, kept as received SMS are (forward_incoming_sms); its parts' bytes follow over HTTP. */
  private async mms(identity: DeviceIdentity, payload: Buffer): Promise<void> {
    const mms = decodeMmsReport(payload);
    if (!mms.ok) return this.rejected(identity.deviceId, 'invalid_payload', mms.reason);
    await this.whileForwarding(identity, () =>
      this.ports.inbound.storeMms(identity.accountId, identity.deviceId, {
        deviceMmsId: mms.value.id,
        phone: mms.value.phone,
        recipients: mms.value.recipients ?? [],
        subject: mms.value.subject ?? null,
        message: mms.value.message ?? null,
        simSlot: mms.value.sim_slot ?? null,
        receivedAt: new Date(mms.value.received_at),
        parts: mms.value.parts.map((part) => ({ id: part.id, contentType: part.content_type, size: part.size })),
      }),
    );
  }

  /**
   * The network's answer to a USSD request. Applied once committed (a QoS 2 answer is acknowledged
   * only then); an answer after its session ended (a timeout), a repeat or one of an earlier step
   * changes nothing and is counted by outcome; one naming no session of this phone is rejected.
   */
  private async ussd(identity: DeviceIdentity, payload: Buffer): Promise<void> {
    const answer = decodeUssdReport(payload);
    if (!answer.ok) return this.rejected(identity.deviceId, 'invalid_payload', answer.reason);
    const outcome = await this.untilCommitted(() => this.ports.inbound.reportUssd(identity.deviceId, answer.value));
    this.metrics.count('ussd_reports_total', 'USSD answers from phones, by outcome', { outcome });
    if (outcome === 'unknown') this.rejected(identity.deviceId, 'unknown_ussd_session');
    if (outcome === 'late') this.logger.info({ deviceId: identity.deviceId, sessionId: answer.value.session_id }, 'USSD answer after its session ended, ignored');
  }

  /**
   * Runs `work` until it succeeds, retrying with backoff while the database is unreachable, for
   * at most MAX_HOLD_MS; other errors, and an outage longer than that, fail at once.
   */
  private async untilCommitted<T>(work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    const backoff = new Backoff(250, 5_000);
    for (;;) {
      const attemptedAt = Date.now();
      try {
        const result = await work();
        this.outage.succeeded(attemptedAt);
        return result;
      } catch (error) {
        if (!this.outage.failed(error) || performance.now() - started >= MAX_HOLD_MS) throw error;
        // Unref'd: a gateway stopping during an outage does not wait for it.
        await new Promise((resolve) => setTimeout(resolve, backoff.delay()).unref());
      }
    }
  }
}
