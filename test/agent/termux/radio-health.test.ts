// What the Termux radio says of itself in the heartbeat (radio), found from the commands it
// already runs: a command with no answer, a permission refused, the SIM's state.
import { expect } from 'chai';
import { createTermuxRadio } from '../../../agent/src/radio/termux/index.ts';
import type { OutgoingSms, Radio } from '../../../agent/src/radio/radio.ts';
import { RecordingHandlers, TermuxPhone, TestMemory } from '../support/termux-standin.ts';

const DEVICE_INFO = { phone_count: 1, sim_operator_name: 'Telekom', network_operator_name: 'Telekom.de', sim_state: 'ready' };
const PERMISSION_REFUSAL = '{\n  "error": "Please grant the following permissions to use this command: android.permission.SEND_SMS"\n}\n';

function sms(overrides: Partial<OutgoingSms> = {}): OutgoingSms {
  return { smsId: 'sms-1', phone: '+491701234567', message: 'Hello', simSlot: undefined, statusReport: false, ...overrides };
}

describe('Termux radio: its health in the status', () => {
  let phone: TermuxPhone;
  let radio: Radio;

  async function startRadio(options: { permissionRecheckMs?: number } = {}): Promise<void> {
    radio = createTermuxRadio(phone.options({ pollIntervalMs: 60_000, commandTimeoutMs: 2_000, ...options }));
    await radio.start(new RecordingHandlers(), new TestMemory());
  }

  beforeEach(async () => {
    phone = await TermuxPhone.create();
    await phone.setBattery({ percentage: 80, plugged: 'UNPLUGGED', status: 'DISCHARGING' });
    await phone.setDeviceInfo(DEVICE_INFO);
    await phone.setCellInfo([]);
  });

  afterEach(async () => {
    await radio.stop();
    await phone.remove();
  });

  it('a phone whose commands answer and whose SIM is ready can send', async () => {
    await startRadio();
    expect((await radio.status()).health).to.deep.equal({ canSend: true });
  });

  it('a Termux:API command that hangs past the timeout is termux_api_unresponsive, until the commands answer again', async () => {
    await startRadio();
    for (const command of ['termux-battery-status', 'termux-telephony-deviceinfo', 'termux-telephony-cellinfo']) {
      await phone.failNext(command, { hangMs: 5_000, stdout: '{}' });
    }
    const health = (await radio.status()).health;
    expect(health?.canSend).to.equal(false);
    expect(health?.problem).to.equal('termux_api_unresponsive');
    expect(health?.detail).to.contain('no answer within');

    for (const command of ['termux-battery-status', 'termux-telephony-deviceinfo', 'termux-telephony-cellinfo']) await phone.stopFailing(command);
    expect((await radio.status()).health).to.deep.equal({ canSend: true });
  });

  it('a send that hangs is termux_api_unresponsive at the next heartbeat if the status commands hang too', async () => {
    await startRadio();
    await phone.failNext('termux-sms-send', { hangMs: 5_000 });
    const result = await radio.send(sms());
    expect(result.ok).to.equal(false);
    await phone.failNext('termux-battery-status', { hangMs: 5_000, stdout: '{}' });
    await phone.failNext('termux-telephony-deviceinfo', { hangMs: 5_000, stdout: '{}' });
    await phone.failNext('termux-telephony-cellinfo', { hangMs: 5_000, stdout: '[]' });
    expect((await radio.status()).health?.problem).to.equal('termux_api_unresponsive');
  });

  it('a send refused for the SMS permission is permission_missing, until a send goes out', async () => {
    await startRadio();
    await phone.failNext('termux-sms-send', { stdout: PERMISSION_REFUSAL, once: true });
    expect((await radio.send(sms())).ok).to.equal(false);
    const health = (await radio.status()).health;
    expect(health).to.include({ canSend: false, problem: 'permission_missing' });
    expect(health?.detail).to.contain('android.permission.SEND_SMS');

    expect((await radio.send(sms())).ok).to.equal(true);
    expect((await radio.status()).health).to.deep.equal({ canSend: true });
  });

  it('a permission refusal is believed only for a while: then the radio says it can send, so that one send finds out', async () => {
    await startRadio({ permissionRecheckMs: 0 });
    await phone.failNext('termux-sms-send', { stdout: PERMISSION_REFUSAL, once: true });
    await radio.send(sms());
    expect((await radio.status()).health).to.deep.equal({ canSend: true });
  });

  it('a SIM asking for its PIN is sim_locked', async () => {
    await phone.setDeviceInfo({ ...DEVICE_INFO, sim_state: 'pin_required' });
    await startRadio();
    expect((await radio.status()).health).to.deep.equal({ canSend: false, problem: 'sim_locked', detail: 'termux-telephony-deviceinfo: sim_state pin_required' });
  });
});
