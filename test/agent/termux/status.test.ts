// The heartbeat's status from termux-battery-status, termux-telephony-deviceinfo,
// termux-telephony-cellinfo and getprop; a command that fails leaves its fields out and is
// reported once, not at every heartbeat.
import { expect } from 'chai';
import { createTermuxRadio } from '../../../agent/src/radio/termux/index.ts';
import type { Radio } from '../../../agent/src/radio/radio.ts';
import { RecordingHandlers, TermuxPhone, TestMemory } from '../support/termux-standin.ts';

// Answers in the shapes Termux:API prints (fields trimmed to a realistic few).
const BATTERY = {
  present: true,
  technology: 'Li-ion',
  health: 'GOOD',
  plugged: 'PLUGGED_USB',
  status: 'CHARGING',
  temperature: 27.5,
  voltage: 4231,
  current: 512000,
  percentage: 87,
  level: 87,
  scale: 100,
};
const DEVICE_INFO = {
  data_enabled: 'true',
  data_activity: 'none',
  data_state: 'connected',
  device_id: null,
  device_software_version: '01',
  phone_count: 2,
  phone_type: 'gsm',
  network_operator: '26201',
  network_operator_name: 'Telekom.de',
  network_country_iso: 'de',
  network_type: 'lte',
  network_roaming: false,
  sim_country_iso: 'de',
  sim_operator: '26201',
  sim_operator_name: 'Telekom',
  sim_serial_number: null,
  sim_subscriber_id: null,
  sim_state: 'ready',
};
const CELLS = [
  { type: 'lte', registered: true, asu: 40, dbm: -100, level: 3, ci: 1, pci: 2, tac: 3, mcc: 262, mnc: 1 },
  { type: 'lte', registered: false, asu: 60, dbm: -80, level: 4, pci: 7 },
];

describe('Termux radio: status', () => {
  let phone: TermuxPhone;
  let radio: Radio;
  let handlers: RecordingHandlers;

  beforeEach(async () => {
    phone = await TermuxPhone.create();
    await phone.setBattery(BATTERY);
    await phone.setDeviceInfo(DEVICE_INFO);
    await phone.setCellInfo(CELLS);
    await phone.setProperties({ 'ro.product.model': 'Pixel 6a' });
    radio = createTermuxRadio(phone.options({ pollIntervalMs: 60_000 }));
    handlers = new RecordingHandlers();
    await radio.start(handlers, new TestMemory());
  });

  afterEach(async () => {
    await radio.stop();
    await phone.remove();
  });

  describe('when every command answers', () => {
    it('then battery, charging, the SIM, the signal of the registered cell and the model are reported', async () => {
      const status = await radio.status();

      expect(status).to.deep.equal({
        batteryLevel: 87,
        isCharging: true,
        simCards: [{ index: 0, name_operator: 'Telekom' }],
        signalPercent: 75,
        name: 'Pixel 6a',
        type: 'android',
        health: { canSend: true },
      });
    });
  });

  describe('when the phone is unplugged, has no percentage, no SIM and no registered cell', () => {
    it('then the level comes from level/scale, charging is false, and no SIM or signal is reported', async () => {
      await phone.setBattery({ plugged: 'UNPLUGGED', status: 'DISCHARGING', level: 41, scale: 50 });
      await phone.setDeviceInfo({ ...DEVICE_INFO, sim_state: 'absent', sim_operator_name: '' });
      await phone.setCellInfo([{ type: 'lte', registered: false, dbm: -90, level: 2 }]);

      const status = await radio.status();

      expect(status).to.deep.equal({
        batteryLevel: 82,
        isCharging: false,
        simCards: [],
        name: 'Pixel 6a',
        type: 'android',
        // Android says the SIM is absent: the phone cannot send.
        health: { canSend: false, problem: 'no_sim', detail: 'termux-telephony-deviceinfo: sim_state absent' },
      });
    });
  });

  describe('when only dBm is known for the registered cell', () => {
    it('then -113 to -51 dBm is scaled to 0-100', async () => {
      await phone.setCellInfo([{ type: 'lte', registered: true, asu: 30, dbm: -82 }]);

      expect((await radio.status()).signalPercent).to.equal(50);
    });
  });

  describe('when termux-battery-status fails at every heartbeat', () => {
    it('then the battery fields are left out, the rest is reported, and the problem is reported once', async () => {
      await phone.failNext('termux-battery-status', { stderr: 'termux-api: connection refused\n', exitCode: 1 });

      const first = await radio.status();
      const second = await radio.status();

      for (const status of [first, second]) {
        expect(status).not.to.have.property('batteryLevel');
        expect(status).not.to.have.property('isCharging');
        expect(status.simCards).to.deep.equal([{ index: 0, name_operator: 'Telekom' }]);
      }
      const batteryProblems = handlers.problems.filter((problem) => problem.includes('termux-battery-status'));
      expect(batteryProblems).to.have.length(1);
      expect(batteryProblems[0]).to.contain('connection refused');
    });
  });

  describe('when the battery command fails, works again, then fails again', () => {
    it('then each outage is reported once', async () => {
      await phone.failNext('termux-battery-status', { stdout: '{"error": "temporarily unavailable"}' });
      await radio.status();
      await phone.stopFailing('termux-battery-status');
      expect((await radio.status()).batteryLevel).to.equal(87);
      await phone.failNext('termux-battery-status', { stdout: '{"error": "temporarily unavailable"}' });
      await radio.status();
      await radio.status();

      expect(handlers.problems.filter((problem) => problem.includes('termux-battery-status'))).to.have.length(2);
    });
  });
});
