// DevicePresence (src/modules/devices/presence.ts) on its own: a connected device that shows no
// activity for DEVICE_OFFLINE_AFTER is offline, found by a periodic check; its next activity
// brings it back; a disconnect takes it offline at once. It announces both on the event seam. Device ids are case-insensitive.
import { expect } from 'chai';
import { DevicePresence } from '../../src/modules/devices/presence.ts';
import { ManualClock } from '../../src/common/clock.ts';
import { DomainEvents } from '../../src/events/domain-events.ts';
import type { DevicesEvents } from '../../src/modules/devices/domain-events.ts';

const ACCOUNT = 'account-1';

describe('DevicePresence', () => {
  const AFTER = 1_000;
  const T0 = 1_700_000_000_000;

  /** The seam presence announces on; a failing listener fails the test. */
  let seam: DomainEvents<DevicesEvents>;
  beforeEach(() => {
    seam = new DomainEvents<DevicesEvents>((error) => {
      throw error;
    });
  });

  /** What presence announces, in order, as "online <id>" and "offline <id>". */
  function recording(_presence: DevicePresence): string[] {
    const events: string[] = [];
    seam.on('device.online', ({ deviceId }) => void events.push(`online ${deviceId}`));
    seam.on('device.offline', ({ deviceId }) => void events.push(`offline ${deviceId}`));
    return events;
  }

  describe('when a connected device is silent for the limit', () => {
    it('then the check emits offline once, and its next activity emits online', () => {
      const presence = new DevicePresence(AFTER, seam);
      const events = recording(presence);
      presence.markActive('a', ACCOUNT, T0);
      presence.markActive('b', ACCOUNT, T0 + 500);
      presence.check(T0 + AFTER - 1);
      expect(events).to.deep.equal(['online a', 'online b']);
      presence.check(T0 + AFTER);
      expect(events).to.deep.equal(['online a', 'online b', 'offline a']);
      expect(presence.isOnline('a', T0 + AFTER)).to.equal(false);
      expect(presence.offlineSince('a', T0 + AFTER)).to.equal(T0 + AFTER);
      expect(presence.offlineSince('b', T0 + AFTER)).to.equal(undefined);
      expect(presence.onlineDevices(ACCOUNT, T0 + AFTER)).to.deep.equal(['b']);
      presence.check(T0 + AFTER + 100);
      expect(events, 'no second offline').to.have.length(3);
      presence.markActive('a', ACCOUNT, T0 + 1_200);
      expect(events.slice(3)).to.deep.equal(['online a']);
      expect(presence.isOnline('a', T0 + 1_200)).to.equal(true);
      expect(presence.offlineSince('a', T0 + 1_200)).to.equal(undefined);
      presence.check(T0 + AFTER + 500);
      expect(events.slice(4)).to.deep.equal(['offline b']);
    });
  });

  describe('when a silent device disconnects', () => {
    it('then no second offline is emitted, and it stays offline since the silence began', () => {
      const presence = new DevicePresence(AFTER, seam);
      const events = recording(presence);
      presence.markActive('a', ACCOUNT, T0);
      presence.check(T0 + 5_000);
      presence.markDisconnected('a', T0 + 6_000);
      expect(events).to.deep.equal(['online a', 'offline a']);
      expect(presence.offlineSince('a', T0 + 7_000)).to.equal(T0 + AFTER);
      presence.markActive('a', ACCOUNT, T0 + 8_000);
      expect(events).to.deep.equal(['online a', 'offline a', 'online a']);
    });
  });

  describe('when activity or a disconnect comes after the limit but before the check ran', () => {
    it('then the missed offline is emitted first, so the events always alternate', () => {
      const presence = new DevicePresence(AFTER, seam);
      const events = recording(presence);
      presence.markActive('a', ACCOUNT, T0);
      presence.markActive('a', ACCOUNT, T0 + AFTER + 10);
      expect(events).to.deep.equal(['online a', 'offline a', 'online a']);
      presence.markDisconnected('a', T0 + 3 * AFTER);
      expect(events.slice(3)).to.deep.equal(['offline a']);
      expect(presence.offlineSince('a', T0 + 4 * AFTER)).to.equal(T0 + 2 * AFTER + 10);
      presence.check(T0 + 10 * AFTER);
      expect(events, 'nothing more').to.have.length(4);
    });
  });

  describe('when a device disconnects while active', () => {
    it('then it is offline since the disconnect, and a device never seen has no offline time', () => {
      const presence = new DevicePresence(AFTER, seam);
      presence.markActive('a', ACCOUNT, T0);
      presence.markDisconnected('a', T0 + 300);
      expect(presence.offlineSince('a', T0 + 400)).to.equal(T0 + 300);
      expect(presence.offlineSince('never-seen')).to.equal(undefined);
    });
  });

  describe('when a device id is written in another case', () => {
    it('then it names the same device', () => {
      const id = '0b1e8f6c-2d7a-4c55-9e1a-5f3b2c4d6e7f';
      const presence = new DevicePresence(AFTER, seam);
      const events = recording(presence);
      presence.markActive(id.toUpperCase(), ACCOUNT, T0);
      presence.markActive(id, ACCOUNT, T0 + 10);
      expect(events).to.deep.equal([`online ${id}`]);
      expect(presence.isOnline(id.toUpperCase(), T0 + 20)).to.equal(true);
      expect(presence.onlineDevices(ACCOUNT, T0 + 20)).to.deep.equal([id]);
      presence.markDisconnected(id.toUpperCase(), T0 + 30);
      expect(events).to.deep.equal([`online ${id}`, `offline ${id}`]);
      expect(presence.offlineSince(id, T0 + 40)).to.equal(T0 + 30);
    });
  });

  describe('when it is given a clock', () => {
    it('then activity, the check and offlineSince read the time from it', () => {
      const clock = new ManualClock(T0);
      const presence = new DevicePresence(AFTER, seam, clock);
      const events = recording(presence);
      presence.markActive('a', ACCOUNT);
      clock.advance(AFTER - 1);
      expect(presence.check()).to.equal(0);
      clock.advance(1);
      expect(presence.check()).to.equal(1);
      expect(events).to.deep.equal(['online a', 'offline a']);
      expect(presence.offlineSince('a')).to.equal(T0 + AFTER);
    });
  });

  describe('when the check runs for 10,000 connected devices of which none is due', () => {
    it('then it emits offline for exactly the devices that are due', () => {
      const presence = new DevicePresence(300_000, seam);
      for (let i = 0; i < 10_000; i++) presence.markActive(`device-${i}`, `account-${i % 50}`, T0 + i);
      expect(presence.check(T0 + 1_000)).to.equal(0);
      expect(presence.check(T0 + 300_000 + 99)).to.equal(100);
      expect(presence.onlineDevices('account-0', T0 + 300_000 + 99)).to.have.length(198);
    });
  });
});
