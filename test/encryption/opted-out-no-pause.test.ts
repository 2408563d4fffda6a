// A phone that refuses an encrypted SMS because its recipient opted out did what it should: the
// refusal says nothing of the phone, its SIM or its credit, so it does not count towards pausing
// the device after repeated failed sends.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { liftLimits, nextEvent } from '../support/devices.ts';
import { receive, receivingPhone } from '../opt-out/support.ts';
import { PASSPHRASE, sendEncryptedThrough } from './support.ts';

const OPTED_OUT = '+79161234567';
const OTHER = '+79161234568';

describe('end-to-end encrypted SMS refused by the phone for an opted-out recipient', () => {
  const fx = useGateway({ config: { pauseAfterFailures: 2 } });

  it('when the phone refuses more of them than pause a device, then the device is not paused and sends the next SMS', async () => {
    const inbox = await receivingPhone(fx);
    const device = await fx.connectDevice({ passphrase: PASSPHRASE });
    await liftLimits(fx.gateway, fx.tenant, device.id);
    const listed = nextEvent(device, 'settings', (settings: { opted_out?: { count: number } }) => settings.opted_out?.count === 1);
    await receive(inbox, OPTED_OUT, 'STOP');
    await listed;

    for (let refused = 0; refused < 3; refused++) await sendEncryptedThrough(fx.tenant, device, OPTED_OUT, 'failed_send');

    const read = (await fx.tenant.api.get(`/devices/${device.id}`)).body;
    expect(read.paused_until, 'not paused').to.equal(null);
    const sent = await sendEncryptedThrough(fx.tenant, device, OTHER, 'delivered');
    expect(device.sent.get(sent.id)).to.include({ phone: OTHER });
  });
});
