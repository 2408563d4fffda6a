// A phone under the test's full control: a real MQTT connection that collects the tasks it is
// given and reports only when the test says so. Pacing tests need a phone that never reports on
// its own (it holds its window full) or one that reports at once (it would take more than its
// limits allow if the gateway let it).
import type { MqttClient } from 'mqtt';
import { deviceTopic } from '../../broker/topics.ts';
import type { Gateway } from '../../src/gateway.ts';
import type { SendTask } from '../../src/modules/delivery/task.ts';
import { rawDevice } from './raw-device.ts';
import type { Tenant } from './tenant.ts';

export class TaskPhone {
  /** Tasks received and not yet reported by sendAll(). */
  readonly tasks: SendTask[] = [];
  private readonly seen = new Set<string>();
  /** Tasks the gateway told this phone to drop, with the reason. */
  readonly revoked = new Map<string, string>();
  private waiters: { count: number; resolve: () => void }[] = [];

  private constructor(
    readonly id: string,
    readonly token: string,
    private readonly gateway: Gateway,
    readonly client: MqttClient,
  ) {
    client.on('message', (topic, payload) => {
      if (topic === deviceTopic(id, 'revoke')) {
        const { sms_id: smsId, reason } = JSON.parse(payload.toString()) as { sms_id: string; reason: string };
        this.revoked.set(smsId, reason);
        return;
      }
      if (topic !== deviceTopic(id, 'tasks')) return;
      const task = JSON.parse(payload.toString()) as SendTask;
      // A task published again (not acknowledged in time) is the same task; a retry of a send
      // that failed (a higher attempt) is a new one.
      const key = `${task.sms_id}#${task.attempt ?? 1}`;
      if (this.seen.has(key)) return;
      this.seen.add(key);
      this.tasks.push(task);
      this.waiters = this.waiters.filter((waiter) => (this.total >= waiter.count ? (waiter.resolve(), false) : true));
    });
  }

  /** Registers a device, applies `settings` (PATCH settings body), connects and subscribes. */
  static async connect(gateway: Gateway, tenant: Tenant, settings: Record<string, unknown> = {}): Promise<TaskPhone> {
    const { device, token } = await gateway.services.devices.register(tenant.accountId, 'task-phone');
    if (Object.keys(settings).length > 0) {
      const patched = await tenant.api.patch(`/devices/${device.id}/settings`, settings);
      if (patched.status !== 200) throw new Error(`settings refused: ${JSON.stringify(patched.body)}`);
    }
    const phone = await TaskPhone.open(gateway, device.id, token);
    await phone.settle();
    return phone;
  }

  /** Connects again with the same credentials, as a phone back from a dead zone. */
  static async reconnect(gateway: Gateway, phone: TaskPhone): Promise<TaskPhone> {
    return TaskPhone.open(gateway, phone.id, phone.token);
  }

  /** Listens before it subscribes: tasks the gateway re-sends at once are not missed. */
  private static async open(gateway: Gateway, id: string, token: string): Promise<TaskPhone> {
    const client = await rawDevice(gateway.mqttPort, id, token, false);
    const phone = new TaskPhone(id, token, gateway, client);
    await client.subscribeAsync({ [deviceTopic(id, 'revoke')]: { qos: 1 }, [deviceTopic(id, 'tasks')]: { qos: 1 } });
    return phone;
  }

  /** Resolves once the phone was given at least `count` tasks in all. */
  until(count: number, timeoutMs = 5_000): Promise<void> {
    if (this.total >= count) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`phone was given ${this.total} tasks, waited for ${count}`)), timeoutMs);
      this.waiters.push({ count, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }

  /**
   * Lets the gateway give this phone whatever it may now, and makes sure every task published
   * to it has arrived: a claim, then a round trip on the connection (the broker answers a
   * SUBSCRIBE after the packets it queued before it).
   */
  async settle(): Promise<void> {
    await this.gateway.services.dispatcher.claimFor(this.id);
    await this.client.subscribeAsync(deviceTopic(this.id, 'settings'), { qos: 1 });
  }

  /**
   * Says it is still there (a heartbeat, QoS 2: resolved once the gateway handled it), as a real
   * phone does at least once a keepalive. A test that moves the gateway's clock past
   * DEVICE_OFFLINE_AFTER calls it, or the phone counts as silent and is handed nothing.
   */
  async heartbeat(): Promise<void> {
    await this.client.publishAsync(deviceTopic(this.id, 'heartbeat'), JSON.stringify({ battery_level: 80, is_charging: false, sim_cards: [] }), { qos: 2 });
  }

  /** Publishes a status report (QoS 2: resolved once the gateway committed it). */
  async report(smsId: string, status: string, error?: string): Promise<void> {
    await this.client.publishAsync(deviceTopic(this.id, 'status'), JSON.stringify({ sms_id: smsId, status, ...(error ? { error } : {}) }), { qos: 2 });
  }

  /** Publishes a status report with more members (error_code, sim_slot...), QoS 2 as report(). */
  async reportWith(smsId: string, status: string, extra: Record<string, unknown>): Promise<void> {
    await this.client.publishAsync(deviceTopic(this.id, 'status'), JSON.stringify({ sms_id: smsId, status, ...extra }), { qos: 2 });
  }

  /** Acknowledges and sends every task it holds that it has not reported yet. */
  async sendAll(): Promise<void> {
    for (const task of this.tasks.splice(0)) {
      this.done.push(task);
      await this.report(task.sms_id, 'processing');
      await this.report(task.sms_id, 'sent');
    }
  }

  /** Tasks already reported by sendAll(). */
  readonly done: SendTask[] = [];

  /** Every task this phone was ever given. */
  get total(): number {
    return this.seen.size;
  }

  async stop(): Promise<void> {
    await this.client.endAsync(true);
  }

  /** Drops the connection without DISCONNECT: the broker sees the phone vanish. */
  kill(): void {
    this.client.stream.destroy();
    void this.client.endAsync(true).catch(() => {});
  }
}

/** No limits at all: for tests whose subject is not pacing. */
export const UNPACED = { send_window: 50, limits: { per_minute: null, per_hour: null, per_day: null } };
