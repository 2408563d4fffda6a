// GET /api/ext/v1/stats/summary, the dashboard: devices online and offline, SMS created since
// today's UTC midnight (or ?since=) by Extended status, SMS that became sent or failed in each
// of the last 24 hours (UTC hours, or those starting on ?since='s minute; from the status history), and webhooks failing or disabled. Needs
// sms:read; the device counts need devices:read too; only the account's own rows count. The
// gateway's clock is fixed.
import { expect } from 'chai';
import { ManualClock } from '../../src/common/clock.ts';
import type { SmsStatus } from '../../src/modules/messages/status.ts';
import { useGateway } from '../support/use-gateway.ts';
import type { Tenant } from '../support/tenant.ts';
import { expectError } from '../support/expectations.ts';
import { userSession } from '../support/session-client.ts';
import { createWebhook, webhookConfig } from '../support/webhooks.ts';
import { markWebhookFailing, recordStatusHistory, updateSms } from '../support/test-data.ts';

const NOW = Date.parse('2026-03-02T10:30:00.000Z');
const at = (iso: string) => new Date(iso);

describe('extended API: dashboard summary', () => {
  const clock = new ManualClock(NOW);
  // Webhooks to this machine are allowed; no event they listen to happens here.
  const fx = useGateway({ clock, config: { webhooks: webhookConfig() } });

  beforeEach(() => clock.set(NOW));

  /** An SMS of the tenant created at `created` (as the API made it, moved in time) now in `status`. */
  async function sms(created: string, status: SmsStatus = 'pending', owner: Tenant = fx.tenant): Promise<string> {
    const reply = await owner.api.post('/sms', { phone: '+79161234567', message: 'count me' });
    expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
    await updateSms(fx, reply.body.id, { created_at: at(created), status });
    return reply.body.id;
  }

  /** Test setup: a status the SMS went through at `when`, as a device report would record it. */
  async function history(smsId: string, status: SmsStatus, when: string): Promise<void> {
    await recordStatusHistory(fx, smsId, status, at(when));
  }

  it('counts today\'s SMS by Extended status, or those since ?since=', async () => {
    await sms('2026-03-02T09:00:00Z', 'pending');
    await sms('2026-03-02T07:00:00Z', 'processing');
    await sms('2026-03-02T08:00:00Z', 'sent');
    await sms('2026-03-02T00:00:00Z', 'failed_send');
    await sms('2026-03-01T23:59:59Z', 'delivered');
    const reply = await fx.tenant.api.get('/stats/summary');
    expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
    expect(reply.body.sms).to.deep.equal({
      since: '2026-03-02T00:00:00.000Z',
      by_status: { pending: 2, sent: 1, delivered: 0, undelivered: 0, failed_send: 1, failed_delivery: 0 },
    });
    const since = await fx.tenant.api.get('/stats/summary?since=2026-03-01T12:00:00Z');
    expect(since.body.sms.since).to.equal('2026-03-01T12:00:00.000Z');
    expect(since.body.sms.by_status.delivered).to.equal(1);
    expectError(await fx.tenant.api.get('/stats/summary?since=yesterday'), 400, 'validation_failed');
    // A parameter the route does not declare is ignored on a GET.
    expect((await fx.tenant.api.get('/stats/summary?other=1')).status).to.equal(200);
  });

  it('has 24 hourly buckets, oldest first, the last the hour under way, counting what became sent and what failed', async () => {
    const a = await sms('2026-03-01T10:00:00Z', 'failed_delivery');
    const b = await sms('2026-03-02T09:00:00Z', 'sent');
    const c = await sms('2026-03-02T09:00:00Z', 'failed_send');
    await history(a, 'sent', '2026-03-01T10:59:59Z'); // before the first bucket
    await history(a, 'failed_delivery', '2026-03-01T11:00:00Z'); // the first bucket
    await history(b, 'sent', '2026-03-02T10:10:00Z'); // the hour under way
    await history(c, 'sent', '2026-03-02T09:05:00Z');
    await history(c, 'failed_send', '2026-03-02T09:59:59Z');
    await history(b, 'delivered', '2026-03-02T10:20:00Z'); // neither sent nor failed
    const other = await fx.newTenant();
    await history(await sms('2026-03-02T10:00:00Z', 'sent', other), 'sent', '2026-03-02T10:15:00Z');

    const { hourly } = (await fx.tenant.api.get('/stats/summary')).body;
    expect(hourly).to.have.length(24);
    expect(hourly[0]).to.deep.equal({ hour: '2026-03-01T11:00:00.000Z', sent: 0, failed: 1 });
    expect(hourly[22]).to.deep.equal({ hour: '2026-03-02T09:00:00.000Z', sent: 1, failed: 1 });
    expect(hourly[23]).to.deep.equal({ hour: '2026-03-02T10:00:00.000Z', sent: 1, failed: 0 });
    const counted = hourly.reduce((sum: number, bucket: { sent: number; failed: number }) => sum + bucket.sent + bucket.failed, 0);
    expect(counted).to.equal(4);
  });

  it('starts each hourly bucket on the minute of ?since= within its hour: a local midnight gives that zone\'s hours', async () => {
    const b = await sms('2026-03-02T09:00:00Z', 'sent');
    await history(b, 'sent', '2026-03-02T10:29:59Z'); // 15:59:59 in a zone 5:30 ahead
    await history(b, 'failed_delivery', '2026-03-02T10:30:00Z'); // 16:00 there, the hour under way
    // That zone's midnight of 2 March.
    const { hourly } = (await fx.tenant.api.get('/stats/summary?since=2026-03-01T18:30:00Z')).body;
    expect(hourly).to.have.length(24);
    expect(hourly[0].hour).to.equal('2026-03-01T11:30:00.000Z');
    expect(hourly[22]).to.deep.equal({ hour: '2026-03-02T09:30:00.000Z', sent: 1, failed: 0 });
    expect(hourly[23]).to.deep.equal({ hour: '2026-03-02T10:30:00.000Z', sent: 0, failed: 1 });
  });

  it('counts devices online and offline (deleted ones not at all), and names failing or disabled webhooks', async () => {
    const { device: online } = await fx.registerDevice('online');
    await fx.registerDevice('offline');
    const { device: gone } = await fx.registerDevice('deleted');
    expect((await fx.tenant.api.delete(`/devices/${gone.id}`)).status).to.be.oneOf([200, 204]);
    fx.gateway.services.presence.markActive(online.id, fx.tenant.accountId, NOW);

    const { webhook: healthy } = await createWebhook(fx.tenant, 'http://127.0.0.1:9/healthy', ['sms.received']);
    const { webhook: failing } = await createWebhook(fx.tenant, 'http://127.0.0.1:9/failing', ['sms.received']);
    const { webhook: disabled } = await createWebhook(fx.tenant, 'http://127.0.0.1:9/disabled', ['sms.received']);
    await markWebhookFailing(fx, failing.id, at('2026-03-02T10:00:00Z'), 3);
    expect((await fx.tenant.api.patch(`/webhooks/${disabled.id}`, { enabled: false })).status).to.equal(200);

    const { devices, webhooks } = (await fx.tenant.api.get('/stats/summary')).body;
    expect(devices).to.deep.equal({ online: 1, offline: 1 });
    expect(webhooks.failing).to.equal(2);
    expect(webhooks.ids).to.have.members([failing.id, disabled.id]).and.not.include(healthy.id);
  });

  it('shows only the account\'s own rows: another account sees zeros', async () => {
    await sms('2026-03-02T09:00:00Z', 'sent');
    await fx.registerDevice();
    const other = await fx.newTenant();
    const reply = await other.api.get('/stats/summary');
    expect(reply.body.devices).to.deep.equal({ online: 0, offline: 0 });
    expect(Object.values(reply.body.sms.by_status).every((n) => n === 0)).to.equal(true);
    expect(reply.body.webhooks).to.deep.equal({ failing: 0, ids: [] });
  });

  it('needs sms:read (403 without it); the device counts need devices:read too, null without it; a viewer reads it all', async () => {
    await fx.registerDevice();
    expectError(await (await fx.keyWith(['devices:read'])).get('/stats/summary'), 403, 'forbidden');
    const smsOnly = await (await fx.keyWith(['sms:read'])).get('/stats/summary');
    expect(smsOnly.status).to.equal(200);
    expect(smsOnly.body.devices).to.equal(null);
    expect(smsOnly.body.hourly).to.have.length(24);
    const both = await (await fx.keyWith(['sms:read', 'devices:read'])).get('/stats/summary');
    expect(both.body.devices).to.deep.equal({ online: 0, offline: 1 });
    const viewer = await userSession(fx.gateway, fx.tenant.accountId, 'viewer');
    const viewed = await viewer.get('/stats/summary');
    expect(viewed.status).to.equal(200);
    expect(viewed.body.devices).to.deep.equal({ online: 0, offline: 1 });
  });
});
