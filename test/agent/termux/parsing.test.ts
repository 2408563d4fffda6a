// The pieces that read Termux:API's output on their own: times, durations, call types, battery,
// SIM and signal, and refusals printed as JSON.
import { expect } from 'chai';
import { parseTermuxDuration, parseTermuxLocalTime } from '../../../agent/src/radio/termux/termux-time.ts';
import { callDirection } from '../../../agent/src/radio/termux/call-log.ts';
import { batteryFields, deviceInfoFields, signalPercent } from '../../../agent/src/radio/termux/device-status.ts';
import { parseTermuxArray } from '../../../agent/src/radio/termux/termux-json.ts';
import { scrubPhoneNumbers } from '../../../agent/src/radio/termux/scrub.ts';

describe('Termux output parsing', () => {
  describe('when a time is in the "yyyy-MM-dd HH:mm:ss" form', () => {
    it('then it is read in the local time zone, and any other form gives undefined', () => {
      expect(parseTermuxLocalTime('2024-12-31 23:59:58')?.getTime()).to.equal(new Date(2024, 11, 31, 23, 59, 58).getTime());
      expect(parseTermuxLocalTime('31.12.2024 23:59')).to.equal(undefined);
      expect(parseTermuxLocalTime('')).to.equal(undefined);
    });
  });

  describe('when a call duration is "MM:SS" or "HH:MM:SS"', () => {
    it('then it becomes seconds, and anything else undefined', () => {
      expect(parseTermuxDuration('00:00')).to.equal(0);
      expect(parseTermuxDuration('59:59')).to.equal(3599);
      expect(parseTermuxDuration('02:00:01')).to.equal(7201);
      expect(parseTermuxDuration('12')).to.equal(undefined);
      expect(parseTermuxDuration('1:xx')).to.equal(undefined);
    });
  });

  describe('when a call type is one the gateway has no word for', () => {
    it('then rejected, blocked and voicemail count as missed, and unknown types as nothing', () => {
      expect(['INCOMING', 'OUTGOING', 'MISSED', 'REJECTED', 'BLOCKED', 'VOICEMAIL', 'UNKNOWN_TYPE'].map(callDirection)).to.deep.equal([
        'incoming',
        'outgoing',
        'missed',
        'missed',
        'missed',
        'missed',
        undefined,
      ]);
    });
  });

  describe('when the phone is plugged in but not charging (held full by the charger)', () => {
    it('then it counts as charging; unplugged and full also counts; nothing known gives no field', () => {
      expect(batteryFields({ plugged: 'PLUGGED_AC', status: 'NOT_CHARGING', percentage: 100 })).to.deep.equal({ batteryLevel: 100, isCharging: true });
      expect(batteryFields({ plugged: 'UNPLUGGED', status: 'FULL' })).to.deep.equal({ isCharging: true });
      expect(batteryFields({})).to.deep.equal({});
    });
  });

  describe('when the SIM needs its PIN', () => {
    it('then no SIM card is reported, but the slot count is', () => {
      expect(deviceInfoFields({ sim_state: 'pin_required', sim_operator_name: '', phone_count: 2 })).to.deep.equal({ simCards: [], slotCount: 2, simState: 'pin_required' });
    });
  });

  describe('when the SIM has no operator name', () => {
    it("then the network operator's name is used", () => {
      expect(deviceInfoFields({ sim_state: 'ready', sim_operator_name: '', network_operator_name: 'Vodafone' }).simCards).to.deep.equal([
        { index: 0, name_operator: 'Vodafone' },
      ]);
    });
  });

  describe('when several cells are registered (two SIMs)', () => {
    it('then the best one counts, and bars win over dBm', () => {
      expect(signalPercent([
        { registered: true, level: 1, dbm: -60 },
        { registered: true, level: 2, dbm: -110 },
      ])).to.equal(50);
      expect(signalPercent([])).to.equal(undefined);
    });
  });

  describe('when a command prints a refusal as JSON', () => {
    it('then reading its list fails with that refusal, numbers cut down', () => {
      expect(() => parseTermuxArray('termux-sms-list', '{"error": "no access for +491701234567"}')).to.throw(
        'termux-sms-list: no access for +49…',
      );
    });
  });

  describe('when a text holds phone numbers', () => {
    it('then runs of six or more digits are cut to three characters, short numbers stay', () => {
      expect(scrubPhoneNumbers('exit status 1, slot 2, +491701234567 and 0301234567')).to.equal('exit status 1, slot 2, +49… and 030…');
    });
  });
});
