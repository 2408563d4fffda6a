// What the modem says of itself in the heartbeat (radio): the SIM and the network registration,
// asked at each status read.
import { expect } from 'chai';
import { useModem } from '../support/modem-fixture.ts';
import type { AtChannel } from '../../../agent/src/radio/modem/at-channel.ts';
import { AtCommandError, AtTimeoutError } from '../../../agent/src/radio/modem/at-errors.ts';
import { modemHealth } from '../../../agent/src/radio/modem/modem-health.ts';

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
    it(`+CREG: 0,${state} is not_registered`, async () => {
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

describe('modem radio: its health from the answers of AT+CPIN? and AT+CREG?', () => {
  /** A channel that answers each command as the test says: lines, or the error the modem gave. */
  function channel(answers: Record<string, string[] | Error>): AtChannel {
    return {
      command: async (command: string) => {
        const answer = answers[command] ?? [];
        if (answer instanceof Error) throw answer;
        return answer;
      },
    } as unknown as AtChannel;
  }

  it('+CME ERROR: 10 to AT+CPIN? is no_sim', async () => {
    const health = await modemHealth(channel({ 'AT+CPIN?': new AtCommandError('AT+CPIN?', '+CME ERROR', 10) }));
    expect(health).to.include({ canSend: false, problem: 'no_sim' });
  });

  it('"SIM not inserted" in a modem\'s verbose words is no_sim', async () => {
    const health = await modemHealth(channel({ 'AT+CPIN?': new AtCommandError('AT+CPIN?', '+CME ERROR', undefined, 'SIM not inserted') }));
    expect(health).to.include({ canSend: false, problem: 'no_sim' });
  });

  it('a SIM still asking for its PIN is sim_locked', async () => {
    const health = await modemHealth(channel({ 'AT+CPIN?': ['+CPIN: SIM PIN'] }));
    expect(health).to.deep.equal({ canSend: false, problem: 'sim_locked', detail: 'AT+CPIN?: SIM PIN' });
  });

  it('a modem that answers neither says it can send: nothing shows it cannot', async () => {
    const health = await modemHealth(channel({ 'AT+CPIN?': new AtCommandError('AT+CPIN?', 'ERROR', undefined), 'AT+CREG?': new AtCommandError('AT+CREG?', 'ERROR', undefined) }));
    expect(health).to.deep.equal({ canSend: true });
  });

  it('no answer in time is modem_unresponsive', async () => {
    const health = await modemHealth(channel({ 'AT+CPIN?': new AtTimeoutError('AT+CPIN?', 1500) }));
    expect(health).to.include({ canSend: false, problem: 'modem_unresponsive' });
  });
});
