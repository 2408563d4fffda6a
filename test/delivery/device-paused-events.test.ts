// A device the circuit breaker pauses says so: a webhook for device.paused with the reason and
// paused_until, and device.resumed when the pause ends, whether by time (paused_until passes:
// nothing runs then, the announcer's sweep finds it) or by PATCH settings {"paused": false}.
// Real broker, a real MQTT phone that reports the failures, a real receiver; a ManualClock moves
// time past the pause, and the sweep is run at once instead of waiting for its next second.
import { expect } from 'chai';
import { ManualClock } from '../../src/common/clock.ts';
import { useGateway } from '../support/use-gateway.ts';
import { eventually } from '../support/eventually.ts';
import { UNPACED, type TaskPhone } from '../support/task-phone.ts';
import type { Received } from '../support/receiver.ts';
import { createWebhook, dropWebhooks, webhookConfig } from '../support/webhooks.ts';

const PAUSE_MS = 600_000;
const ofType = (type: string) => (received: Received) => received.json?.type === type;

describe('delivery: device pause events', () => {
  const clock = new ManualClock(Date.parse('2026-11-22T10:00:00Z'));
  const fx = useGateway({ clock, config: { webhooks: webhookConfig(), pauseAfterFailures: 5, pauseForMs: PAUSE_MS } });

  afterEach(() => dropWebhooks(fx.gateway, [fx.tenant.accountId]));

  /** A phone that fails 5 sends in a row (each final: one attempt), and the device.paused its receiver gets. */
  async function pausedPhone() {
    const receiver = await fx.receiver();
    await createWebhook(fx.tenant, receiver.url, ['device.paused', 'device.resumed']);
    const phone: TaskPhone = await fx.taskPhone({ ...UNPACED, max_send_attempts: 1 });
    for (let i = 0; i < 5; i++) {
      const created = await fx.tenant.api.post('/sms', { phone: '+79161234567', message: 'fails', device_id: phone.id });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      await phone.until(i + 1);
      await phone.report(created.body.id, 'processing');
      await phone.report(created.body.id, 'failed_send', 'RESULT_ERROR_NO_SERVICE');
    }
    // The breaker pauses the device once the last report committed; the sweep then finds it.
    await eventually('the device paused', async () => (await fx.tenant.api.get(`/devices/${phone.id}`)).body.paused_until !== null);
    await sweep();
    const [paused] = await receiver.waitFor(1, ofType('device.paused'));
    return { phone, receiver, paused: paused!.json };
  }

  /** A sweep that starts now: the timer's own run, if one is under way, may have read the rows before the change. */
  async function sweep(): Promise<void> {
    await fx.gateway.services.pauseAnnouncer.runOnce();
    await fx.gateway.services.pauseAnnouncer.runOnce();
  }

  it('when a phone fails 5 sends in a row and its pause runs out, then device.paused carries the reason and device.resumed follows, ended by time', async () => {
    const { phone, receiver, paused } = await pausedPhone();
    expect(paused.data.device).to.include({ id: phone.id });
    expect(paused.data.pause.paused_until).to.equal(new Date(clock.now() + PAUSE_MS).toISOString());
    expect(paused.data.pause.reason).to.contain('5 sends failed in a row').and.contain('RESULT_ERROR_NO_SERVICE');
    expect((await fx.tenant.api.get(`/devices/${phone.id}`)).body.paused_reason).to.equal(paused.data.pause.reason);

    clock.advance(PAUSE_MS + 1);
    await sweep();
    const [resumed] = await receiver.waitFor(1, ofType('device.resumed'));
    expect(resumed!.json.data).to.deep.equal({ device: paused.data.device, pause: { paused_until: paused.data.pause.paused_until, ended_by: 'time' } });
    // Each once: later sweeps find nothing more to say.
    await sweep();
    expect(receiver.received.map((received) => received.json.type)).to.deep.equal(['device.paused', 'device.resumed']);
  });

  it('when a paused phone is resumed with PATCH settings, then device.resumed says the settings ended it', async () => {
    const { phone, receiver, paused } = await pausedPhone();
    const patched = await fx.tenant.api.patch(`/devices/${phone.id}/settings`, { paused: false });
    expect(patched.status, JSON.stringify(patched.body)).to.equal(200);
    await sweep();
    const [resumed] = await receiver.waitFor(1, ofType('device.resumed'));
    expect(resumed!.json.data.pause).to.deep.equal({ paused_until: paused.data.pause.paused_until, ended_by: 'settings' });
  });
});
