// Receiving through the modem: SMS stored on the SIM are handed over whole and deleted only once the
// agent kept them; status reports become delivery reports.
import { expect } from 'chai';
import { useModem } from '../support/modem-fixture.ts';

const SENDER = '+491701234567';

describe('modem radio: receiving', () => {
  const modem = useModem();

  describe('when a three-part Unicode SMS arrives', () => {
    it('then it is handed over once, joined, and its parts are deleted only after the agent kept it', async () => {
      const { standin, recorder } = await modem.start();
      let keep!: () => void;
      recorder.onIncoming = () => new Promise<void>((resolve) => (keep = resolve));
      const text = `Привет! ${'Длинное сообщение 🙂 '.repeat(8)}конец`;
      const indexes = standin.deliverIncoming(SENDER, text);
      expect(indexes).to.have.length(3);

      const [sms] = await recorder.until(() => recorder.received.length === 1 && recorder.received, 'the joined SMS');
      expect(sms!.phone).to.equal(SENDER);
      expect(sms!.message).to.equal(text);
      expect(sms!.id).to.match(/^modem-[0-9a-f]{32}$/);
      // Handed over but not yet kept: every part is still on the SIM.
      expect([...standin.storage.keys()]).to.deep.equal(indexes);
      expect(standin.commands.some((command) => command.startsWith('AT+CMGD'))).to.equal(false);

      const deleted = Promise.all(indexes.map(() => standin.waitForCommand(/^AT\+CMGD=/)));
      keep();
      await deleted;
      await standin.storageEmptied();
      expect(recorder.received).to.have.length(1);
    });
  });

  describe('when only some parts of a long SMS have arrived', () => {
    it('then nothing is handed over and the parts stay on the SIM until the last one comes', async () => {
      const { standin, recorder, radio } = await modem.start();
      // The listing at start must not see the parts: they arrive after it.
      await standin.seenCommand(/^AT\+CMGL=4$/);
      const text = 'x'.repeat(300);
      const indexes = standin.deliverIncoming(SENDER, text, { announce: false });
      // Announce only the first part; a status round trip after its read lets the radio digest it.
      standin.emitGarbage([`+CMTI: "SM",${indexes[0]}`]);
      await standin.seenCommand(new RegExp(`^AT\\+CMGR=${indexes[0]}$`));
      await radio.status();
      expect(recorder.received).to.have.length(0);
      expect(standin.storage.size).to.equal(2);
      standin.emitGarbage([`+CMTI: "SM",${indexes[1]}`]);
      const [sms] = await recorder.until(() => recorder.received.length === 1 && recorder.received, 'the joined SMS');
      expect(sms!.message).to.equal(text);
      await standin.storageEmptied();
    });
  });

  describe('when the agent does not keep an incoming SMS (the handler rejects)', () => {
    it('then nothing is deleted, a problem is reported, and the same SMS (same id) is handed over again later', async () => {
      const { standin, recorder } = await modem.start({ radio: { pollIntervalMs: 200 } });
      let calls = 0;
      recorder.onIncoming = async () => {
        calls++;
        if (calls === 1) throw new Error('journal full');
      };
      const [index] = standin.deliverIncoming(SENDER, 'please keep me');
      await recorder.until(() => recorder.problems.find((problem) => /did not take an SMS/.test(problem)), 'the refusal reported');
      expect(standin.storage.has(index!)).to.equal(true);
      await recorder.until(() => recorder.received.length >= 2 || undefined, 'the second hand-over');
      expect(recorder.received[1]!.id).to.equal(recorder.received[0]!.id);
      await standin.storageEmptied();
      // Problems name the sender by its ends only.
      expect(recorder.problems.join('\n')).to.not.include(SENDER);
      expect(recorder.problems.join('\n')).to.not.include('please keep me');
    });
  });

  describe('when SMS are already stored when the radio starts', () => {
    it('then the listing at start hands them over and deletes them', async () => {
      const { standin, recorder, radio, memory } = await modem.start({ started: false });
      standin.deliverIncoming(SENDER, 'sent while the agent was down', { announce: false });
      await radio.start(recorder, memory);
      const [sms] = await recorder.until(() => recorder.received.length === 1 && recorder.received, 'the stored SMS');
      expect(sms!.message).to.equal('sent while the agent was down');
      expect(standin.commands).to.include('AT+CMGL=4');
      await standin.storageEmptied();
    });
  });

  describe('when a status report comes for a sent part', () => {
    it('then TP-ST 0x00 is handed over as delivered, with the part\'s reference and recipient', async () => {
      const { standin, recorder, radio } = await modem.start();
      const result = await radio.send({ smsId: 's', phone: '+491511234567', message: 'hi', simSlot: undefined, statusReport: true });
      if (!result.ok) throw new Error(result.error);
      standin.sendStatusReport(result.references![0]!, '+491511234567', 0x00);
      const [report] = await recorder.until(() => recorder.reports.length === 1 && recorder.reports, 'the delivery report');
      expect(report).to.deep.equal({ reference: result.references![0], phone: '+491511234567', outcome: 'delivered' });
    });

    it('then TP-ST 0x46 is handed over as undelivered with its reason', async () => {
      const { standin, recorder } = await modem.start();
      standin.sendStatusReport(77, '+491511234567', 0x46);
      const [report] = await recorder.until(() => recorder.reports.length === 1 && recorder.reports, 'the delivery report');
      expect(report).to.deep.equal({ reference: 77, phone: '+491511234567', outcome: 'undelivered', error: 'validity period expired' });
    });

    it('then a temporary error (0x21) is handed over as pending', async () => {
      const { standin, recorder } = await modem.start();
      standin.sendStatusReport(78, '+491511234567', 0x21);
      const [report] = await recorder.until(() => recorder.reports.length === 1 && recorder.reports, 'the delivery report');
      expect(report!.outcome).to.equal('pending');
    });
  });
});
