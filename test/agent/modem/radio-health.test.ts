// What the modem says of itself in the heartbeat (radio): the SIM and the network registration,
// asked at each status read.
import { expect } from 'chai';
import { useModem } from '../support/modem-fixture.ts';

describe('modem radio: its health in the status', () => {
  const modem = useModem();

  it('a registered modem with its SIM ready can send', async () => {
    const { radio, standin } = await modem.start();
    expect((await radio.status()).health).to.deep.equal({ canSend: true });
    expect(standin.commands.filter((command) => command === 'AT+CREG?').length).to.be.greaterThan(1);
  });

  for (const [state, meaning] of [
    [0, 'not registered, not searching'],
    [2, 'not registered, searching'],
    [3, 'registration denied'],
  ] as const) {
    it(`+CREG: 0,${state} is not_registered, and it can send again once registered`, async () => {
      const { radio } = await modem.start({ standin: { registration: state } });
      expect((await radio.status()).health).to.deep.equal({ canSend: false, problem: 'not_registered', detail: `AT+CREG?: ${meaning} (${state})` });
    });
  }

  it('registration coming back is seen at the next status read', async () => {
    const options: { registration: number } = { registration: 0 };
    const { radio } = await modem.start({ standin: options });
    expect((await radio.status()).health?.problem).to.equal('not_registered');
    options.registration = 5;
    expect((await radio.status()).health).to.deep.equal({ canSend: true });
  });
});
