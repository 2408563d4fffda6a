// A device that subscribes to its tasks is sent what it holds and claims what waits for it; devices
// that become ready together (a reconnect storm) share one read of that, and only those with
// something to claim take a claim transaction. None is ever left online with work it is not handed:
// an SMS queued while a device connects, after that read found nothing, reaches it by the queued
// path.
//
// The dispatcher here is one of the test's own on the gateway's database, never started: no sweep
// runs, so what reaches the device came by the connect path or the queued path, not by the sweep
// that would otherwise mend a miss a second later. Its link to the device records what it is sent.
// One test holds up the read of what a device holds, to see that an SMS the queued path sent
// meanwhile is not sent again when the read finds it. The end-to-end part below reconnects real
// phones to the gateway.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { TaskPhone } from '../support/task-phone.ts';
import { Dispatcher, type DeviceLink } from '../../src/modules/delivery/dispatcher.ts';
import { TransientStore } from '../../src/modules/delivery/transient-store.ts';
import type { DevicePresence } from '../../src/modules/devices/presence.ts';
import type { SendTask } from '../../src/modules/delivery/task.ts';
import { systemClock } from '../../src/common/clock.ts';
import { createLogger } from '../../src/common/logger.ts';
import type { DeviceRow } from '../../src/modules/devices/types.ts';
import type { Database } from '../../src/storage/database.ts';
import { eventually } from '../support/eventually.ts';
import { statementsDuring as statementsSent } from '../support/statements.ts';

const PHONE = '+79161234567';

describe('delivery: devices becoming ready', () => {
  const fx = useGateway();

  /** Devices the test's dispatcher holds the connection of, and the tasks each was sent, in order. */
  class RecordingLink implements DeviceLink {
    readonly ready = new Set<string>();
    readonly sent = new Map<string, string[]>();
    isReady(deviceId: string): boolean {
      return this.ready.has(deviceId);
    }
    async sendTask(deviceId: string, task: SendTask): Promise<void> {
      this.sent.set(deviceId, [...(this.sent.get(deviceId) ?? []), task.sms_id]);
    }
    async sendSettings(): Promise<void> {}
    async revokeTask(): Promise<void> {}
    disconnect(): void {}
    of(deviceId: string): string[] {
      return this.sent.get(deviceId) ?? [];
    }
  }

  /** Every device counts as heard from: what is tested is readiness, not silence. */
  const online = { current: true, isOnline: () => true, offlineSince: () => undefined } as unknown as DevicePresence;

  function dispatcher(link: RecordingLink, db: Database = fx.gateway.services.db): Dispatcher {
    const options = {
      ackTimeoutMs: 60_000,
      failoverAfterMs: 600_000,
      sweepIntervalMs: 1_000,
      breaker: { failures: 5, pauseMs: 60_000 },
      simBreaker: { failures: 5, pauseMs: 60_000 },
    };
    const own = new Dispatcher(db, online, new TransientStore(), fx.gateway.services.events, systemClock, createLogger('silent'), options, link);
    // SMS the API queues are offered to the devices it holds, as the gateway's own dispatcher is told.
    const stop = fx.gateway.services.events.on('sms.queued', (sms) => own.queued(sms));
    fx.onCleanup(async () => {
      stop();
      await own.stop();
    });
    return own;
  }

  async function device(name: string): Promise<DeviceRow> {
    const { device } = await fx.registerDevice(name);
    // Room for every task a test gives it.
    await fx.tenant.api.patch(`/devices/${device.id}/settings`, { send_window: 50, limits: { per_minute: null, per_hour: null, per_day: null } });
    return (await fx.gateway.services.db('devices').where({ id: device.id }).first()) as DeviceRow;
  }

  async function send(extra: Record<string, unknown> = {}): Promise<string> {
    const created = await fx.tenant.api.post('/sms', { phone: PHONE, message: 'ready', ...extra });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    return created.body.id as string;
  }

  /** Statements run on the gateway's database while `work` runs. */
  async function statementsDuring(work: () => Promise<void>): Promise<string[]> {
    return (await statementsSent(fx.gateway.services.db, work)).map((statement) => statement.sql);
  }

  const locksOfDevices = (statements: string[]) => statements.filter((sql) => /^select 1 from devices where id = (\?|\$1) and deleted_at is null for update$/.test(sql)).length;

  describe('when a device becomes ready with pool SMS of its account waiting', () => {
    it('then it is handed them', async () => {
      const link = new RecordingLink();
      const own = dispatcher(link);
      const phone = await device('pool');
      const waiting = [await send(), await send()];

      link.ready.add(phone.id);
      await own.deviceReady(phone);

      expect(link.of(phone.id)).to.deep.equal(waiting);
    });
  });

  describe('when a device becomes ready with SMS named for it waiting', () => {
    it('then it is handed them', async () => {
      const link = new RecordingLink();
      const own = dispatcher(link);
      const phone = await device('named');
      const other = await device('other');
      const named = await send({ device_id: phone.id });
      await send({ device_id: other.id });

      link.ready.add(phone.id);
      await own.deviceReady(phone);

      expect(link.of(phone.id)).to.deep.equal([named]);
    });
  });

  describe('when a device holding more tasks than a page becomes ready', () => {
    it('then it is sent every one again, oldest hand-out first, and takes no claim with nothing waiting', async () => {
      const link = new RecordingLink();
      const own = dispatcher(link);
      const phone = await device('holder');
      const held: string[] = [];
      for (let i = 0; i < 130; i++) held.push(await send({ device_id: phone.id }));
      // Handed out before, newest created first: the order sent again is the hand-out order.
      const handedOut = [...held].reverse();
      await fx.gateway.services.db.raw(
        `update sms set dispatched_at = ?::timestamptz + (array_position(?::uuid[], id) * interval '1 millisecond') where id = any(?::uuid[])`,
        [new Date(Date.now() - 60_000), handedOut, handedOut],
      );

      link.ready.add(phone.id);
      const statements = await statementsDuring(() => own.deviceReady(phone));

      expect(link.of(phone.id)).to.deep.equal(handedOut);
      expect(locksOfDevices(statements)).to.equal(0);
    });
  });

  describe('when many devices become ready together, a few with work waiting', () => {
    it('then each is handed its own, and only those with work take a claim', async () => {
      const link = new RecordingLink();
      const own = dispatcher(link);
      const phones: DeviceRow[] = [];
      for (let i = 0; i < 12; i++) phones.push(await device(`storm-${i}`));
      const named = new Map([
        [phones[3]!.id, await send({ device_id: phones[3]!.id })],
        [phones[8]!.id, await send({ device_id: phones[8]!.id })],
      ]);

      for (const phone of phones) link.ready.add(phone.id);
      const statements = await statementsDuring(async () => {
        await Promise.all(phones.map((phone) => own.deviceReady(phone)));
      });

      for (const phone of phones) expect(link.of(phone.id)).to.deep.equal(named.has(phone.id) ? [named.get(phone.id)] : []);
      expect(locksOfDevices(statements)).to.equal(named.size);
      expect(statements.filter((sql) => sql.includes('ready_device')).length).to.be.below(phones.length);
    });
  });

  describe('when an SMS is queued while a device connects, after the read of what it may claim found nothing', () => {
    it('then the device is handed it by the queued path', async () => {
      const link = new RecordingLink();
      const own = dispatcher(link);
      const phone = await device('racer');
      const db = fx.gateway.services.db;
      // The moment the read answered (it found nothing: no SMS exists yet), the SMS is created.
      let created: Promise<string> | undefined;
      const answered = (_response: unknown, query: { sql: string }) => {
        if (query.sql.includes('ready_device')) created ??= send();
      };
      db.on('query-response', answered);
      try {
        link.ready.add(phone.id);
        await own.deviceReady(phone);
      } finally {
        db.off('query-response', answered);
      }
      expect(created, 'the read ran').to.not.equal(undefined);
      const smsId = await created!;

      await eventually('the SMS handed to the device', () => link.of(phone.id).includes(smsId));
      expect(link.of(phone.id)).to.deep.equal([smsId]);
    });
  });

  describe('when an SMS is claimed for a device while the read of what it holds is held up', () => {
    it('then the device is sent it once, not again when the read finds it among its tasks', async () => {
      const link = new RecordingLink();
      // The gateway's database, except that the read of ready devices' work waits for the test.
      let readStarted!: () => void;
      const started = new Promise<void>((resolve) => (readStarted = resolve));
      let openGate!: () => void;
      const gate = new Promise<void>((resolve) => (openGate = resolve));
      const real = fx.gateway.services.db;
      const held = new Proxy(real, {
        get(target, property) {
          if (property === 'raw') {
            return async (sql: string, bindings: unknown) => {
              if (sql.includes('ready_device')) {
                readStarted();
                await gate;
              }
              return target.raw(sql, bindings as never);
            };
          }
          const value = Reflect.get(target, property, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      const own = dispatcher(link, held);
      const phone = await device('held-read');

      link.ready.add(phone.id);
      const readying = own.deviceReady(phone);
      await started;
      // Ready, its read not run yet: an SMS queued now is claimed and sent by the queued path.
      const smsId = await send();
      await eventually('the SMS sent by the queued path', () => link.of(phone.id).includes(smsId));
      // Then the read runs, and finds the SMS among the tasks the device holds.
      openGate();
      await readying;

      expect(link.of(phone.id)).to.deep.equal([smsId]);
    });
  });

  describe('when SMS are queued at every point of several devices connecting', () => {
    it('then every SMS is handed to one of them', async function () {
      this.timeout(30_000);
      const link = new RecordingLink();
      const own = dispatcher(link);
      const phones: DeviceRow[] = [];
      for (let i = 0; i < 4; i++) phones.push(await device(`connecting-${i}`));
      const created: Promise<string>[] = [];
      for (let round = 0; round < 6; round++) {
        for (const phone of phones) own.deviceGone(phone.id);
        const readies = phones.map((phone) => (link.ready.add(phone.id), own.deviceReady(phone)));
        // Before the shared read, during it, and after it: each round queues at a later turn.
        for (let turn = 0; turn < round; turn++) await new Promise((resolve) => setImmediate(resolve));
        created.push(send(), send({ device_id: phones[round % phones.length]!.id }));
        await Promise.all(readies);
      }
      const ids = await Promise.all(created);

      const handed = () => [...link.sent.values()].flat();
      await eventually('every SMS handed to a device', () => ids.every((id) => handed().includes(id)));
      const named = await fx.gateway.services.db('sms').whereIn('id', ids).whereNotNull('device_id').select('id', 'device_id');
      for (const row of named as { id: string; device_id: string }[]) expect(link.of(row.device_id)).to.include(row.id);
    });
  });

  describe('when real phones reconnect with pool SMS and SMS named for them waiting', () => {
    it('then each phone is handed what waits for it', async () => {
      const first = await fx.taskPhone({ send_window: 50 });
      const second = await fx.taskPhone({ send_window: 50 });
      first.kill();
      second.kill();
      await eventually('both phones offline', () => !fx.gateway.services.presence.isOnline(first.id, Date.now()) && !fx.gateway.services.presence.isOnline(second.id, Date.now()));
      const named = await send({ device_id: second.id });
      const pool = await send();

      const [again, secondAgain] = await Promise.all([TaskPhone.reconnect(fx.gateway, first), TaskPhone.reconnect(fx.gateway, second)]);
      fx.track(again);
      fx.track(secondAgain);

      await secondAgain.until(1);
      expect(secondAgain.tasks.map((task) => task.sms_id)).to.include(named);
      await eventually('the pool SMS handed to a phone', () => [...again.tasks, ...secondAgain.tasks].some((task) => task.sms_id === pool));
    });
  });
});
