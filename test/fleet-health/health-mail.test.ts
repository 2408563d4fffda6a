// With an SMTP server (SMTP_URL), the account's owners are mailed once per batch of health
// changes: which device and SIM, degraded or healthy again, and why; never a phone number. A
// viewer, a disabled owner and another account's owners get nothing.
import { expect } from 'chai';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { ManualClock } from '../../src/common/clock.ts';
import { useGateway } from '../support/use-gateway.ts';
import { eventually } from '../support/eventually.ts';
import { aCannotSend, judge, writeProbes } from './health-probes.ts';

const SIM_NUMBER = '+79165550001';

describe('fleet health: mail to the owners', () => {
  const mails: { to: string[]; data: string }[] = [];
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      let data = '';
      stream.on('data', (chunk: Buffer) => (data += chunk.toString('utf8')));
      stream.on('end', () => {
        mails.push({ to: session.envelope.rcptTo.map((rcpt) => rcpt.address), data });
        callback();
      });
    },
  });
  before(async () => {
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  });
  after(async () => {
    await new Promise<void>((resolve) => smtp.close(resolve));
  });

  const clock = new ManualClock(Date.parse('2026-12-05T10:00:00Z'));
  const fx = useGateway({
    clock,
    config: () => ({
      inboundRules: { smtpUrl: `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`, mailFrom: 'gateway@example.com', autoReplyWindowMs: 600_000, regexTimeoutMs: 50 },
    }),
  });

  it('when a SIM is degraded and then marked healthy, then each owner gets one mail each time, naming the device and SIM without phone numbers', async () => {
    const { users } = fx.gateway.services;
    const tag = fx.tenant.accountId.slice(0, 8);
    await users.create({ accountId: fx.tenant.accountId, email: `owner-${tag}@example.com`, role: 'owner' });
    await users.create({ accountId: fx.tenant.accountId, email: `second-${tag}@example.com`, role: 'owner' });
    await users.create({ accountId: fx.tenant.accountId, email: `viewer-${tag}@example.com`, role: 'viewer' });
    const ids: string[] = [];
    for (const name of ['Kitchen phone', 'B', 'C']) ids.push((await fx.registerDevice(name)).device.id);
    const [a, b, c] = [ids[0]!, ids[1]!, ids[2]!];
    await fx.tenant.api.patch(`/devices/${a}/settings`, { sim_numbers: { '0': SIM_NUMBER } });
    const ours = () => mails.filter((mail) => mail.to.some((to) => to.endsWith(`${tag}@example.com`)));

    await writeProbes(fx, clock, ...aCannotSend(a, b, c));
    await judge(fx);
    const degraded = await eventually('the owners mailed', () => (ours().length >= 2 ? ours() : undefined));
    expect(degraded.flatMap((mail) => mail.to).sort()).to.deep.equal([`owner-${tag}@example.com`, `second-${tag}@example.com`]);
    const text = degraded[0]!.data;
    expect(text).to.contain('SIM health changed (1 degraded)');
    expect(text).to.contain('Kitchen phone, SIM 0: degraded (does not send)');
    expect(text).not.to.contain(SIM_NUMBER);
    expect(text).not.to.contain(SIM_NUMBER.slice(1));

    expect((await fx.tenant.api.post(`/devices/${a}/health/mark-healthy`, {})).status).to.equal(200);
    const all = await eventually('the owners mailed again', () => (ours().length >= 4 ? ours() : undefined));
    expect(all[2]!.data).to.contain('1 recovered').and.contain('Kitchen phone, SIM 0: healthy again: marked healthy by the owner');
    // Judged again, marked again: nothing changed, nothing mailed. The next change's mails come
    // right after the last ones.
    await judge(fx);
    expect((await fx.tenant.api.post(`/devices/${a}/health/mark-healthy`, {})).status).to.equal(200);
    clock.advance(60_000);
    await writeProbes(fx, clock, { round: 3, from: [b, 0], to: [a, 0], result: 'failed', ago: 0 }, { round: 3, from: [c, 0], to: [a, 0], result: 'failed', ago: 0 }, { round: 3, from: [b, 0], to: [c, 0], result: 'passed', ago: 0 }, { round: 3, from: [c, 0], to: [b, 0], result: 'passed', ago: 0 });
    await judge(fx);
    const last = await eventually('the owners mailed a third time', () => (ours().length >= 6 ? ours() : undefined));
    expect(last).to.have.length(6);
    expect(last[4]!.data).to.contain('Kitchen phone, SIM 0: degraded (does not receive)');
  });
});
