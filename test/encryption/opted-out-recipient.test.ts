// The gateway cannot read the recipient of an end-to-end encrypted SMS, so it cannot refuse one to
// a number that sent STOP; the phone can. The account's suppression list reaches its online phones
// (hashed) with new settings as soon as a STOP is stored, without a reconnect, and a simulated
// phone (the device agent inside) refuses such an SMS unsent: failed_send, reason
// recipient_opted_out, in the API and in the status webhook.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { liftLimits, nextEvent } from '../support/devices.ts';
import { createWebhook, dropWebhooks, verified, webhookConfig } from '../support/webhooks.ts';
import { receive, receivingPhone } from '../opt-out/support.ts';
import type { SimulatedDevice } from '../../src/simulator/device.ts';
import { PASSPHRASE, sendEncryptedThrough } from './support.ts';

const OPTED_OUT = '+79161234567';
const OTHER = '+79161234568';

type Settings = Record<string, unknown> & { opted_out?: { count: number } };

describe('end-to-end encrypted SMS to a number that opted out', () => {
  const fx = useGateway({ config: { webhooks: webhookConfig() } });
  afterEach(async () => dropWebhooks(fx.gateway, [fx.tenant.accountId]));

  async function sendingPhone(): Promise<SimulatedDevice> {
    const device = await fx.connectDevice({ passphrase: PASSPHRASE });
    await liftLimits(fx.gateway, fx.tenant, device.id);
    return device;
  }

  describe('when the number sent STOP while the phone was connected', () => {
    it('then the phone gets the hashed list in new settings without reconnecting, and refuses the SMS with recipient_opted_out', async () => {
      const receiver = await fx.receiver();
      const { secret } = await createWebhook(fx.tenant, receiver.url, ['sms.status_changed']);
      const inbox = await receivingPhone(fx);
      const device = await sendingPhone();
      let connections = 0;
      device.on('connected', () => connections++);
      const pushed = nextEvent(device, 'settings', (settings: Settings) => settings.opted_out?.count === 1);

      await receive(inbox, OPTED_OUT, 'STOP');
      const [settings] = await pushed;
      expect(connections, 'no reconnect').to.equal(0);
      // Hashes only: the number is nowhere in the settings, in any form.
      expect(JSON.stringify(settings)).to.not.contain('9161234567');
      expect(settings.opted_out).to.include({ scheme: 'hmac-sha256/64', count: 1, complete: true });

      const refused = await sendEncryptedThrough(fx.tenant, device, OPTED_OUT, 'failed_send');
      expect(refused).to.include({ status: 'failed_send', reason: 'recipient_opted_out', is_encrypted: true });
      expect(device.sendCount.get(refused.id), 'never handed to the radio').to.equal(undefined);
      const [event] = await receiver.waitFor(1, (request) => request.json?.data?.sms?.id === refused.id && request.json?.data?.sms?.internal_status === 'failed_send');
      expect(verified(secret, event!).data.sms).to.include({ internal_status: 'failed_send', reason: 'recipient_opted_out' });

      // Another number is not on the list: its encrypted SMS goes out.
      const sent = await sendEncryptedThrough(fx.tenant, device, OTHER, 'delivered');
      expect(device.sent.get(sent.id)).to.include({ phone: OTHER });
    });
  });

  describe('when the number sends START afterwards', () => {
    it('then the phone gets settings without the list, and sends to it again', async () => {
      const inbox = await receivingPhone(fx);
      const device = await sendingPhone();
      const listed = nextEvent(device, 'settings', (settings: Settings) => settings.opted_out?.count === 1);
      await receive(inbox, OPTED_OUT, 'STOP');
      await listed;
      const unlisted = nextEvent(device, 'settings', (settings: Settings) => settings.opted_out === undefined);
      await receive(inbox, OPTED_OUT, 'START');
      await unlisted;
      const sent = await sendEncryptedThrough(fx.tenant, device, OPTED_OUT, 'delivered');
      expect(device.sent.get(sent.id)).to.include({ phone: OPTED_OUT });
    });
  });
});
