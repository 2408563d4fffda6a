// A modem that stops answering, and one that talks garbage.
import { expect } from 'chai';
import type { OutgoingSms } from '../../../agent/src/radio/radio.ts';
import { useModem } from '../support/modem-fixture.ts';

const SMS: OutgoingSms = { smsId: 's', phone: '+491511234567', message: 'hello', simSlot: undefined, statusReport: false };

describe('modem radio: recovery and noise', () => {
  const modem = useModem();

  describe('when the modem hangs during a send and later answers again', () => {
    it('then that send fails saying it may or may not have gone out, the port is reopened, and the next send works', async () => {
      const { standin, recorder, radio } = await modem.start();
      // Let the listing at start finish first, so the hang catches the send itself.
      await standin.seenCommand(/^AT\+CMGL=4$/);
      await radio.status();
      standin.hang();
      const failed = await radio.send(SMS);
      expect(failed.ok).to.equal(false);
      expect(failed.ok === false && failed.error).to.match(/stopped answering while sending the SMS; it may or may not have gone out/);
      await recorder.until(() => recorder.problems.find((problem) => /closing the port and opening it again/.test(problem)), 'the recovery to start');
      // Still hung: the reopened port gets no answer, and the radio keeps trying.
      await recorder.until(() => recorder.problems.find((problem) => /still not usable/.test(problem)), 'a failed reopening');
      standin.recover();
      await recorder.until(() => recorder.problems.find((problem) => /answers again/.test(problem)), 'the modem back');
      const before = standin.submits.length;
      expect(await radio.send(SMS)).to.deep.equal({ ok: true, simSlot: 0 });
      expect(standin.submits.length).to.equal(before + 1);
      // The failed send was not sent again by itself.
      expect(standin.submits.filter((submit) => submit.decoded.text === 'hello')).to.have.length(1);
    });

    it('then a send asked for while the port is being reopened waits for it and goes out once', async () => {
      const { standin, recorder, radio } = await modem.start();
      await standin.seenCommand(/^AT\+CMGL=4$/);
      await radio.status();
      standin.hang();
      void radio.status();
      await recorder.until(() => recorder.problems.find((problem) => /closing the port/.test(problem)), 'the recovery to start');
      const sending = radio.send(SMS);
      standin.recover();
      expect(await sending).to.deep.equal({ ok: true, simSlot: 0 });
      expect(standin.submits).to.have.length(1);
    });
  });

  describe('when the modem emits garbage lines and unknown notices', () => {
    it('then they are ignored: sending, status and receiving go on', async () => {
      const { standin, radio, recorder } = await modem.start();
      standin.emitGarbage(['\x00\x01\x02garbage', '%%%###', '+WHATEVER: 1,2', 'RING', '^RSSI:12', '> ']);
      expect(await radio.send(SMS)).to.deep.equal({ ok: true, simSlot: 0 });
      expect((await radio.status()).signalPercent).to.equal(65);
      standin.deliverIncoming('+491701234567', 'still listening');
      await recorder.until(() => recorder.received.find((sms) => sms.message === 'still listening'), 'the SMS after the noise');
      expect(recorder.problems).to.deep.equal([]);
    });
  });

  describe('when the radio is stopped', () => {
    it('then the port is closed and a later send is refused', async () => {
      const { radio } = await modem.start();
      await radio.stop();
      expect(await radio.send(SMS)).to.deep.equal({ ok: false, error: 'the modem radio is not running', errorCode: 'radio_unavailable' });
    });
  });
});
