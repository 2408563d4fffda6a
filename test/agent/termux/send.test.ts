// Sending through termux-sms-send: the number and slot as options, the text byte for byte on
// standard input, and what the command answers mapped to a SendResult.
import { expect } from 'chai';
import { createTermuxRadio } from '../../../agent/src/radio/termux/index.ts';
import type { OutgoingSms, Radio } from '../../../agent/src/radio/radio.ts';
import { TermuxPhone } from '../support/termux-standin.ts';

function sms(overrides: Partial<OutgoingSms> = {}): OutgoingSms {
  return { smsId: 'sms-1', phone: '+491701234567', message: 'Hello', simSlot: undefined, statusReport: true, ...overrides };
}

describe('Termux radio: sending', () => {
  let phone: TermuxPhone;
  let radio: Radio;

  beforeEach(async () => {
    phone = await TermuxPhone.create();
    radio = createTermuxRadio(phone.options());
  });

  afterEach(async () => {
    await radio.stop();
    await phone.remove();
  });

  describe('when an SMS with quotes, newlines, Unicode and a leading dash is sent from slot 1', () => {
    it('then termux-sms-send gets the number and slot as options and the exact text on its input', async () => {
      const text = `-n "quoted" 'single' ; rm -rf ~ $(date) \\n\nsecond line 😀 Zürich`;
      const result = await radio.send(sms({ message: text, simSlot: 1 }));

      expect(result).to.deep.equal({ ok: true, simSlot: 1, references: [] });
      const run = await phone.commandsRun();
      expect(run).to.deep.equal([{ command: 'termux-sms-send', args: ['-n', '+491701234567', '-s', '1'], stdin: text }]);
    });
  });

  describe('when no slot is asked for', () => {
    it('then no -s option is given and the result names no slot', async () => {
      const result = await radio.send(sms());

      expect(result).to.deep.equal({ ok: true, references: [] });
      const [run] = await phone.commandsRun();
      expect(run?.args).to.deep.equal(['-n', '+491701234567']);
    });
  });

  describe('when Termux:API answers that the SMS permission is missing', () => {
    it('then the send failed with that error and without the text', async () => {
      await phone.failNext('termux-sms-send', {
        stdout: '{\n  "error": "Please grant the following permissions to use this command: android.permission.SEND_SMS"\n}\n',
        once: true,
      });
      const result = await radio.send(sms({ message: 'secret code 1234' }));

      expect(result.ok).to.equal(false);
      if (result.ok) return;
      expect(result.error).to.contain('Please grant the following permissions');
      expect(result.error).not.to.contain('secret');
      // Android never had it: another phone may send it.
      expect(result.errorCode).to.equal('radio_unavailable');
    });
  });

  describe('when the command exits with an error', () => {
    it('then the send failed with its message and exit status, and the next send works again', async () => {
      await phone.failNext('termux-sms-send', { stderr: 'termux-api: something broke\n', exitCode: 1, once: true });

      const failed = await radio.send(sms({ message: 'secret code 1234' }));
      const next = await radio.send(sms());

      expect(failed).to.deep.equal({ ok: false, error: 'termux-sms-send: termux-api: something broke (exit status 1)', errorCode: 'radio_unavailable' });
      expect(next.ok).to.equal(true);
    });
  });

  describe('when the number is not + and digits', () => {
    it('then the send fails without running the command (the script would split it at commas and spaces)', async () => {
      const result = await radio.send(sms({ phone: '+49170,+49171' }));

      expect(result).to.include({ ok: false, errorCode: 'invalid_number' });
      expect(await phone.commandsRun()).to.deep.equal([]);
    });
  });

  describe('when the status said the phone has one slot and slot 1 is asked for', () => {
    it('then the send fails instead of being dropped by Android without a word', async () => {
      await phone.setDeviceInfo({ phone_count: 1, sim_state: 'ready', sim_operator_name: 'Op' });
      await radio.status();

      const result = await radio.send(sms({ simSlot: 1 }));

      expect(result).to.deep.equal({ ok: false, error: 'SIM slot 1 does not exist: the phone has 1', errorCode: 'sim_unavailable' });
    });
  });

  describe('when the command hangs (the Termux:API app is missing)', () => {
    it('then the send fails after the command timeout with a hint', async () => {
      await radio.stop();
      radio = createTermuxRadio(phone.options({ commandTimeoutMs: 300 }));
      await phone.failNext('termux-sms-send', { hangMs: 5_000, once: true });

      const result = await radio.send(sms());

      expect(result.ok).to.equal(false);
      if (result.ok) return;
      expect(result.error).to.contain('Termux:API app');
      // It may have reached Android before the command hung: a second try could send it twice.
      expect(result.errorCode).to.equal('send_unconfirmed');
    });
  });
});
