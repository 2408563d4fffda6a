// Setting up a modem: PIN, PDU mode, notices, and what the heartbeat learns from it.
import { expect } from 'chai';
import { createModemRadio } from '../../../agent/src/radio/modem/index.ts';
import { useModem, TEST_TIMINGS } from '../support/modem-fixture.ts';
import { MemoryStub, RadioRecorder } from '../support/radio-recorder.ts';
import { ModemStandin } from '../support/modem-standin.ts';

describe('modem radio: setup', () => {
  const modem = useModem();

  describe('when the SIM asks for no PIN', () => {
    it('then echo goes off, PDU mode and the +CMTI/+CDS notices are set, and no PIN is sent', async () => {
      const { standin } = await modem.start();
      expect(standin.commands).to.include.members(['ATE0', 'AT+CMEE=1', 'AT+CPIN?', 'AT+CMGF=0', 'AT+CNMI=2,1,0,1,0', 'AT+CREG?']);
      expect(standin.commands.some((command) => command.startsWith('AT+CPIN='))).to.equal(false);
      expect(standin.commands.indexOf('AT+CMGF=0')).to.be.greaterThan(standin.commands.indexOf('AT+CPIN?'));
    });

    it('then the status reads signal (20 of 31 is 65 %), battery, operator and the modem\'s name', async () => {
      const { radio } = await modem.start();
      expect(await radio.status()).to.deep.equal({
        type: 'modem',
        name: 'Standin GSM Modem 1',
        signalPercent: 65,
        batteryLevel: 80,
        simCards: [{ index: 0, name_operator: 'Standin Mobile' }],
        health: { canSend: true },
      });
    });
  });

  describe('when the SIM stores its own number (AT+CNUM)', () => {
    it('then the status reports it as the SIM\'s phone_number, in international form', async () => {
      const { radio, standin } = await modem.start({ standin: { ownNumberLine: '+CNUM: "Own","79165550001",145' } });
      expect((await radio.status()).simCards).to.deep.equal([{ index: 0, name_operator: 'Standin Mobile', phone_number: '+79165550001' }]);
      expect(standin.commands).to.include('AT+CNUM');
    });

    it('then a number in national form (type 129) is not reported: the agent knows no country to read it in', async () => {
      const { radio } = await modem.start({ standin: { ownNumberLine: '+CNUM: "","89165550001",129' } });
      expect((await radio.status()).simCards).to.deep.equal([{ index: 0, name_operator: 'Standin Mobile' }]);
    });
  });

  describe('when the SIM asks for a PIN and the right one is configured', () => {
    it('then the PIN is entered once before PDU mode is set', async () => {
      const { standin } = await modem.start({ standin: { pin: '1234' }, radio: { pin: '1234' } });
      expect(standin.pinEntered).to.equal(true);
      expect(standin.commands.filter((command) => command === 'AT+CPIN="1234"')).to.have.length(1);
      expect(standin.commands.indexOf('AT+CMGF=0')).to.be.greaterThan(standin.commands.indexOf('AT+CPIN="1234"'));
    });
  });

  describe('when the SIM asks for a PIN and none or a wrong one is configured', () => {
    let standin: ModemStandin | undefined;
    afterEach(async () => standin?.close());

    it('then start fails saying a PIN is needed, without guessing one', async () => {
      standin = await ModemStandin.start({ pin: '1234' });
      const radio = createModemRadio({ path: standin.agentPath, ...TEST_TIMINGS });
      const failure = await radio.start(new RadioRecorder(), new MemoryStub()).then(() => undefined, (error: Error) => error);
      expect(failure?.message).to.match(/asks for its PIN; give it with --pin/);
      expect(standin.commands.some((command) => command.startsWith('AT+CPIN='))).to.equal(false);
    });

    it('then start fails on a wrong PIN after a single try, so the card is not locked by retries', async () => {
      standin = await ModemStandin.start({ pin: '1234' });
      const radio = createModemRadio({ path: standin.agentPath, ...TEST_TIMINGS, pin: '9999' });
      const failure = await radio.start(new RadioRecorder(), new MemoryStub()).then(() => undefined, (error: Error) => error);
      expect(failure?.message).to.match(/refused the PIN/);
      expect(standin.commands.filter((command) => command.startsWith('AT+CPIN='))).to.deep.equal(['AT+CPIN="9999"']);
      expect(standin.pinEntered).to.equal(false);
    });
  });

  describe('when nothing listens on the port path', () => {
    it('then start fails naming the port', async () => {
      const radio = createModemRadio({ path: '/dev/nonexistent-modem-port', ...TEST_TIMINGS });
      const failure = await radio.start(new RadioRecorder(), new MemoryStub()).then(() => undefined, (error: Error) => error);
      expect(failure?.message).to.match(/\/dev\/nonexistent-modem-port/);
    });
  });
});
