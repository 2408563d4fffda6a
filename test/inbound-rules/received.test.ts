// Inbound rules on SMS the account's phones really receive (reported over MQTT): an auto-reply
// through the receiving phone and SIM, a forward by SMS, tags, a forward by email received by a
// real SMTP server, a pathological regular expression that times out while the gateway goes on,
// and an auto-reply loop between two phones of the same account, which stops.
import { expect } from 'chai';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { useGateway } from '../support/use-gateway.ts';
import { eventually } from '../support/eventually.ts';
import type { TaskPhone } from '../support/task-phone.ts';
import { receive, receivingPhone } from '../opt-out/support.ts';
import { smsCountOf } from '../support/test-data.ts';

const SENDER = '+79161234567';

describe('inbound rules: on received SMS', () => {
  const mails: string[] = [];
  let mailWaiters: (() => void)[] = [];
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      let data = '';
      stream.on('data', (chunk: Buffer) => (data += chunk.toString('utf8')));
      stream.on('end', () => {
        mails.push(data);
        for (const wake of mailWaiters.splice(0)) wake();
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

  const fx = useGateway({
    config: () => ({
      inboundRules: {
        smtpUrl: `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`,
        mailFrom: 'gateway@example.com',
        autoReplyWindowMs: 600_000,
        // Long enough that a pause of a loaded machine (a garbage collection, four test processes on
        // two cores) does not time out a harmless match; the pathological one below needs seconds.
        regexTimeoutMs: 400,
      },
    }),
  });

  const rule = async (body: Record<string, unknown>) => {
    const reply = await fx.tenant.api.post('/inbound-rules', body);
    expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
    return reply.body as { id: string };
  };
  const ruleNow = async (id: string) => (await fx.tenant.api.get(`/inbound-rules/${id}`)).body;
  const latestIncoming = async () => (await fx.tenant.api.get('/incoming?limit=1')).body.data[0] as { id: string };
  const tagsOfLatest = async () => (await fx.tenant.api.get(`/incoming/${(await latestIncoming()).id}/tags`)).body.tags as string[];

  it('auto-replies through the phone and SIM that received the keyword, and counts the hit', async () => {
    const phone = await receivingPhone(fx);
    const hours = await rule({ match_keyword: 'hours', action: 'auto_reply', reply_text: 'We are open 9-18.' });
    await receive(phone, SENDER, 'Hours?', 1);
    await phone.until(1);
    expect(phone.tasks[0]).to.deep.include({ phone: SENDER, message: 'We are open 9-18.', sim: 1 });
    expect(await ruleNow(hours.id)).to.deep.include({ hits: 1, regex_timeouts: 0 });
    await receive(phone, SENDER, 'nothing to do with it');
    expect((await ruleNow(hours.id)).hits).to.equal(1);
  });

  it('forwards to another number, and tags only what matches', async () => {
    const phone = await receivingPhone(fx);
    await rule({ match_regex: 'order\\s+#?\\d+', action: 'tag', tags: ['orders', 'sales'] });
    await rule({ match_sender: SENDER, action: 'forward_sms', forward_to: '+79167654321' });
    await receive(phone, SENDER, 'Where is order #42?');
    await phone.until(1);
    expect(phone.tasks[0]).to.deep.include({ phone: '+79167654321', message: `From ${SENDER}: Where is order #42?` });
    expect(await eventually('tags', async () => ((await tagsOfLatest()).length > 0 ? tagsOfLatest() : undefined))).to.deep.equal(['orders', 'sales']);
  });

  it('forwards by email through the SMTP server', async () => {
    const phone = await receivingPhone(fx);
    await rule({ name: 'to ops', match_keyword: 'urgent', action: 'forward_email', email_to: 'ops@example.com' });
    const arrived = new Promise<void>((resolve) => mailWaiters.push(resolve));
    const before = mails.length;
    await receive(phone, SENDER, 'URGENT: the server room is flooding');
    await arrived;
    const mail = mails[before]!;
    expect(mail).to.match(/^To: ops@example\.com/m);
    expect(mail).to.match(/^From: gateway@example\.com/m);
    expect(mail).to.contain(`SMS from ${SENDER}`);
    expect(mail).to.contain('URGENT: the server room is flooding');
  });

  it('gives up on a pathological regular expression in time, counts it, and goes on with the next rules and messages', async () => {
    const phone = await receivingPhone(fx);
    const evil = await rule({ name: 'evil', match_regex: '^(a+)+$', action: 'tag', tags: ['evil'] });
    const after = await rule({ name: 'after', action: 'tag', tags: ['after'] });
    await receive(phone, SENDER, 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!');
    // Given up, not finished: the timeout is counted below (no stopwatch here: a loaded machine is slow either way).
    expect(await eventually('the next rule applied', async () => ((await tagsOfLatest()).length > 0 ? tagsOfLatest() : undefined))).to.deep.equal(['after']);
    const counted = await ruleNow(evil.id);
    expect(counted).to.deep.include({ hits: 0, regex_timeouts: 1 });
    expect(counted.last_timeout_at).to.be.a('string');
    // The gateway goes on: the API answers, and the next SMS is handled.
    await receive(phone, SENDER, 'aaaa');
    await eventually('the second SMS handled', async () => ((await ruleNow(after.id)).hits === 2 ? true : undefined));
    expect(await ruleNow(evil.id)).to.deep.include({ hits: 1, regex_timeouts: 1 });
  });

  it('stops an auto-reply loop between two phones of the same account', async () => {
    const phoneA = await receivingPhone(fx);
    const phoneB = await receivingPhone(fx);
    const numbers = new Map<TaskPhone, string>([
      [phoneA, '+79160000001'],
      [phoneB, '+79160000002'],
    ]);
    const responder = await rule({ name: 'responder', action: 'auto_reply', reply_text: 'Thanks, we will get back to you.' });
    // The network: what one phone sends to the other's number, the other receives.
    const relay = async (from: TaskPhone, to: TaskPhone) => {
      for (const task of from.tasks.splice(0)) {
        expect(task.phone).to.equal(numbers.get(to));
        await receive(to, numbers.get(from)!, task.message);
      }
    };
    await receive(phoneA, numbers.get(phoneB)!, 'Hello A');
    await phoneA.until(1);
    await relay(phoneA, phoneB);
    await phoneB.until(1);
    await relay(phoneB, phoneA);
    // A's second SMS from B is within the window: no second auto-reply to B.
    await eventually('the third SMS handled', async () => ((await ruleNow(responder.id)).hits === 3 ? true : undefined));
    await phoneA.settle();
    await phoneB.settle();
    expect([phoneA.total, phoneB.total]).to.deep.equal([1, 1]);
    expect(await smsCountOf(fx, fx.tenant.accountId)).to.equal(2);
  });

  it('never auto-replies to a text that is itself an automatic answer', async () => {
    const phone = await receivingPhone(fx);
    const responder = await rule({ action: 'auto_reply', reply_text: 'Thanks!' });
    await receive(phone, SENDER, 'Auto-reply: I am out of the office until Monday');
    await eventually('the hit counted', async () => ((await ruleNow(responder.id)).hits === 1 ? true : undefined));
    await phone.settle();
    expect(phone.total).to.equal(0);
  });

  it('sends no auto-reply to a sender that opted out with STOP', async () => {
    const phone = await receivingPhone(fx);
    const responder = await rule({ action: 'auto_reply', reply_text: 'Thanks!' });
    await receive(phone, SENDER, 'STOP');
    await eventually('the hit counted', async () => ((await ruleNow(responder.id)).hits === 1 ? true : undefined));
    await phone.settle();
    expect(phone.total).to.equal(0);
  });
});
