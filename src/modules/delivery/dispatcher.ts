// Moves SMS from the database to phones. Postgres is the queue and MQTT only the transport
// (DESIGN.md decision 1): every task is re-driven from the rows, when a device becomes ready
// (subscribed to its task topic) and on a periodic sweep, so a task survives a device dropping
// mid-send, a gateway restart and a broker that lost its memory. Devices treat the SMS id as an
// idempotency key, so a task delivered twice is sent once.
import type { Database } from '../../storage/database.ts';
import type { Logger } from '../../shared/logger.ts';
import type { GatewayEventBus } from '../../shared/events.ts';
import type { DevicePresence } from '../devices/presence.ts';
import { sendableWithLoad, type DeviceRow } from '../devices/repository.ts';
import type { SmsRecord } from '../messages/repository.ts';
import { chooseDevice } from '../messages/device-picker.ts';
import { accountsWithWaitingSms, assignSms, openTasks, waitingSms } from './repository.ts';
import { buildTask, type SendTask } from './task.ts';
import type { TransientStore } from './transient-store.ts';
import type { StatusIngestor } from './status-ingestor.ts';
import type { DeviceLoad } from '../messages/device-load.ts';

/** What the dispatcher needs from the broker. */
export interface DeviceLink {
  /** Connected and subscribed to its task topic: a task published now reaches it. */
  isReady(deviceId: string): boolean;
  sendTask(deviceId: string, task: SendTask): Promise<void>;
  sendSettings(device: DeviceRow): Promise<void>;
  disconnect(deviceId: string): void;
}

export interface DispatcherOptions {
  /** A task not acknowledged for this long is published again by the sweep. */
  ackTimeoutMs: number;
  sweepIntervalMs: number;
}

type SimInfo = Pick<DeviceRow, 'selected_sim' | 'sim_cards'>;

const PAGE = 500;

export class Dispatcher {
  private link: DeviceLink | undefined;
  private readonly lastPublished = new Map<string, number>();
  private readonly simInfo = new Map<string, SimInfo>();
  private readonly assigning = new Map<string, Promise<void>>();
  private readonly assignAgain = new Set<string>();
  private sweepTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Database,
    private readonly presence: DevicePresence,
    private readonly transient: TransientStore,
    private readonly events: GatewayEventBus,
    ingestor: StatusIngestor,
    private readonly load: DeviceLoad,
    private readonly logger: Logger,
    private readonly options: DispatcherOptions,
  ) {
    events.on('sms.queued', (sms) => this.onQueued(sms));
    events.on('sms.transient', (sms) => this.onTransient(sms));
    events.on('device.settings_changed', (device) => this.onSettingsChanged(device));
    events.on('device.deleted', (device) => this.onDeleted(device));
    // A task the device has taken needs no more publishing.
    ingestor.onApplied((changes) => {
      for (const change of changes) this.lastPublished.delete(change.smsId);
    });
  }

  /** Connects the dispatcher to the broker and starts the sweep. */
  attach(link: DeviceLink): void {
    this.link = link;
    this.sweepTimer = setInterval(() => void this.sweep(), this.options.sweepIntervalMs);
    this.sweepTimer.unref();
  }

  detach(): void {
    clearInterval(this.sweepTimer);
    this.link = undefined;
  }

  /** The device subscribed to its tasks: send everything it holds, then give it waiting SMS. */
  async deviceReady(device: DeviceRow): Promise<void> {
    this.simInfo.set(device.id, { selected_sim: device.selected_sim, sim_cards: device.sim_cards });
    let after: { createdAt: Date; id: string } | undefined;
    for (;;) {
      const tasks = await openTasks(this.db, device.id, PAGE, after);
      for (const sms of tasks) await this.publish(sms);
      if (tasks.length < PAGE) break;
      const last = tasks[tasks.length - 1]!;
      after = { createdAt: last.created_at, id: last.id };
    }
    await this.assignWaiting(device.account_id);
  }

  /** The device reported its SIM cards: -1 ("random SIM") chooses among these from now on. */
  simCardsChanged(deviceId: string, simCards: DeviceRow['sim_cards']): void {
    const info = this.simInfo.get(deviceId);
    if (info) info.sim_cards = simCards;
  }

  deviceGone(deviceId: string): void {
    this.simInfo.delete(deviceId);
  }

  /** Re-publishes unacknowledged tasks and assigns waiting SMS. Runs periodically. */
  async sweep(): Promise<void> {
    try {
      this.transient.forgetStale();
      const now = Date.now();
      for (const [smsId, at] of this.lastPublished) if (now - at > this.options.ackTimeoutMs * 10) this.lastPublished.delete(smsId);
      const ready = [...this.simInfo.keys()].filter((id) => this.link?.isReady(id));
      if (ready.length > 0) {
        const stale = await this.db<SmsRecord>('sms')
          .whereIn('device_id', ready)
          .where({ status: 'pending' })
          .orderBy('created_at')
          .limit(10 * PAGE);
        for (const sms of stale) {
          if (now - (this.lastPublished.get(sms.id) ?? 0) >= this.options.ackTimeoutMs) await this.publish(sms);
        }
      }
      for (const accountId of await accountsWithWaitingSms(this.db)) {
        if (this.presence.onlineDevices(accountId).length > 0) await this.assignWaiting(accountId);
      }
    } catch (error) {
      this.logger.error({ err: error }, 'dispatch sweep failed');
    }
  }

  /** Gives the account's waiting SMS to its ready devices, least busy first, in turns. */
  assignWaiting(accountId: string): Promise<void> {
    const running = this.assigning.get(accountId);
    if (running) {
      // One run per account at a time; a request during a run gets one more run after it.
      this.assignAgain.add(accountId);
      return running;
    }
    const run = this.runAssignment(accountId).finally(() => {
      this.assigning.delete(accountId);
      if (this.assignAgain.delete(accountId)) void this.assignWaiting(accountId);
    });
    this.assigning.set(accountId, run);
    return run;
  }

  private async runAssignment(accountId: string): Promise<void> {
    const ready = this.presence.onlineDevices(accountId).filter((id) => this.link?.isReady(id));
    if (ready.length === 0) return;
    // Usually nothing waits: ask that first, before weighing every device of the account.
    let waiting = await waitingSms(this.db, accountId, PAGE);
    if (waiting.length === 0) return;
    const candidates = await sendableWithLoad(this.db, accountId, ready);
    if (candidates.length === 0) return;
    let previous: string | undefined;
    for (; waiting.length > 0; waiting = waiting.length < PAGE ? [] : await waitingSms(this.db, accountId, PAGE)) {
      const assignments = waiting.map((sms) => {
        const deviceId = chooseDevice(candidates, previous)!;
        previous = deviceId;
        candidates.find((candidate) => candidate.id === deviceId)!.in_flight++;
        return { smsId: sms.id, deviceId };
      });
      const assigned = await assignSms(this.db, assignments);
      for (const sms of assigned) {
        this.load.assigned(sms.device_id!);
        await this.publish(sms);
      }
    }
  }

  private async onQueued(sms: SmsRecord): Promise<void> {
    if (sms.device_id) await this.publish(sms);
  }

  private async onTransient(sms: SmsRecord): Promise<void> {
    this.transient.add(sms);
    await this.publish(sms);
  }

  private async onSettingsChanged(device: DeviceRow): Promise<void> {
    this.simInfo.set(device.id, { selected_sim: device.selected_sim, sim_cards: device.sim_cards });
    await this.link?.sendSettings(device);
    // Whether it gained or lost the right to send, waiting SMS may now have somewhere to go.
    await this.assignWaiting(device.account_id);
  }

  private async onDeleted(device: DeviceRow): Promise<void> {
    this.link?.disconnect(device.id);
    this.deviceGone(device.id);
    await this.assignWaiting(device.account_id);
  }

  private async publish(sms: SmsRecord): Promise<void> {
    const deviceId = sms.device_id;
    if (!deviceId || !this.link?.isReady(deviceId)) return;
    const sim = this.simInfo.get(deviceId);
    if (!sim) return;
    this.lastPublished.set(sms.id, Date.now());
    await this.link.sendTask(deviceId, buildTask(sms, sim));
  }
}
