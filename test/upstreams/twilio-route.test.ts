// Upstream routes through a Twilio-compatible provider, end to end: the provider is a second
// gateway, run as its own process (`sms-gateway serve` on a database of its own) with a simulated
// phone that sends what it is given. The first gateway (in this process, PUBLIC_URL its own
// address) hands it an SMS none of its own phones can send; the second gateway's phone sends and
// delivers it, and the second gateway's signed status callbacks move the SMS on the first to
// delivered. A wrong auth token takes the upstream's link down and the SMS to the next rule; a
// callback not signed with the upstream's token is refused and changes nothing.
import { expect } from 'chai';
import twilio from 'twilio';
import type { Config } from '../../src/config.ts';
import type { Clock } from '../../src/common/clock.ts';
import { SimulatedDevice } from '../../src/simulator/device.ts';
import { GatewayProcess, jsonOf, runCli, tempDataDir, type Env } from '../support/cli.ts';
import { ownDatabase } from '../support/empty-database.ts';
import { testDatabase } from '../support/environment.ts';
import { eventually } from '../support/eventually.ts';
import { startGateway } from '../support/gateway.ts';
import { freePort } from '../support/ports.ts';
import type { ApiClient } from '../support/tenant.ts';
import { useGateway } from '../support/use-gateway.ts';
import { webhookConfig } from '../support/webhooks.ts';

const PHONE = '+447911123456';
/** A number as From: the second gateway then lets any of its account's phones send. */
const FROM = '+15005550006';
/** How long the provider's phone waits before its delivery report: the SMS stays "sent" that long. */
const DELIVERED_AFTER_MS = 1_500;

/** The second gateway: its process, its API's address, its account's Twilio credential and phone. */
interface Provider {
  process: GatewayProcess;
  url: string;
  accountSid: string;
  authToken: string;
  phone: SimulatedDevice;
}

/**
 * Makes the account, its Twilio credential and its phone with the command line, then serves.
 * `onCleanup` hears how to end each thing as soon as it runs, so that a start failing half-way
 * leaves no child process behind.
 */
async function startProvider(env: Env, onCleanup: (cleanup: () => Promise<unknown>) => void): Promise<Provider> {
  const account = 'provider';
  const created = await runCli(['accounts', 'create', account], env, 90_000);
  expect(created.code, created.transcript).to.equal(0);
  const credential = jsonOf(await runCli(['twilio', 'credentials', 'create', '--account', account, '--json'], env)) as { account_sid: string; auth_token: string };
  const device = jsonOf(await runCli(['devices', 'register', '--account', account, '--name', 'provider-phone', '--json'], env)) as {
    device_id: string;
    credentials: { password: string };
  };
  const serving = new GatewayProcess(['serve'], env);
  onCleanup(async () => {
    serving.kill();
    await serving.waitForExit().catch(() => undefined);
  });
  const listening = await serving.waitForLog('gateway listening', 60_000);
  const phone = new SimulatedDevice({
    brokerUrl: `mqtt://127.0.0.1:${listening.mqttPort as number}`,
    deviceId: device.device_id,
    token: device.credentials.password,
    reconnectPeriodMs: 100,
    delays: { processing: 0, sent: 0, delivered: DELIVERED_AFTER_MS },
  });
  onCleanup(() => phone.stop().catch(() => undefined));
  await phone.connect();
  return { process: serving, url: `http://127.0.0.1:${listening.port as number}`, accountSid: credential.account_sid, authToken: credential.auth_token, phone };
}

describe('upstream routes: a Twilio-compatible provider (a second gateway process)', function () {
  this.timeout(60_000);
  // PUBLIC_URL must be known before the gateway starts, so it gets a port picked for it; its
  // outbound guard lets it reach the provider on 127.0.0.1.
  const fx = useGateway({
    config: { webhooks: webhookConfig({ allowedHosts: ['127.0.0.1'] }) },
    start: async (config: Partial<Config>, clock?: Clock) => {
      const port = await freePort();
      return startGateway({ ...config, port, publicUrl: `http://127.0.0.1:${port}` }, clock);
    },
  });
  let provider: Provider | undefined;
  /** Ended in the reverse order of their start: the phone, the child process, its database. */
  const cleanups: (() => unknown)[] = [];

  before(async function () {
    this.timeout(120_000);
    const env: Env = {
      HOST: '127.0.0.1',
      PORT: '0',
      MQTT_PORT: '0',
      LOG_LEVEL: 'info',
      // Its status callbacks go to the first gateway, on 127.0.0.1.
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      WEBHOOK_RETRY_BASE_MS: '50',
    };
    if (testDatabase().kind === 'postgres') {
      const database = await ownDatabase('twilio_route');
      cleanups.push(() => database.drop());
      env.DATABASE_URL = database.url;
    } else {
      const dataDir = tempDataDir('twilio-route');
      cleanups.push(() => dataDir.remove());
      env.DATA_DIR = dataDir.dir;
    }
    provider = await startProvider(env, (cleanup) => cleanups.push(cleanup));
  });

  // Runs even when a test, or the start itself, failed.
  after(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  function given(): Provider {
    if (!provider) throw new Error('the provider gateway did not start');
    return provider;
  }

  async function upstream(api: ApiClient, name: string, authToken = given().authToken): Promise<string> {
    const created = await api.post('/upstreams', { name, kind: 'twilio', base_url: given().url, account_sid: given().accountSid, auth_token: authToken, from: FROM });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    return created.body.id as string;
  }
  const linkOf = async (id: string) => (await fx.tenant.api.get(`/upstreams/${id}`)).body.link as { state: string; detail: string | null };
  async function setRoutes(routes: object[]): Promise<void> {
    const reply = await fx.tenant.api.request('PUT', '/routes', { routes });
    expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
  }
  const sms = async (id: string) => (await fx.tenant.api.get(`/sms/${id}`)).body as { status: string; reason: string | null };
  async function send(message: string): Promise<string> {
    const created = await fx.tenant.api.post('/sms', { phone: PHONE, message });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    return created.body.id as string;
  }
  /** The provider's own record of its messages, through its Twilio API. */
  async function providerMessages(): Promise<{ sid: string; to: string; body: string; status: string }[]> {
    const { url, accountSid, authToken } = given();
    const response = await fetch(`${url}/2010-04-01/Accounts/${accountSid}/Messages.json`, {
      headers: { authorization: `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString('base64')}` },
    });
    expect(response.status).to.equal(200);
    return ((await response.json()) as { messages: { sid: string; to: string; body: string; status: string }[] }).messages;
  }
  /** Posts a status callback to the first gateway as the provider would, with the signature given. */
  async function postCallback(upstreamId: string, params: Record<string, string>, signature: string | undefined): Promise<number> {
    const url = `${fx.baseUrl}/api/upstream/v1/${upstreamId}/twilio/status`;
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
    if (signature !== undefined) headers['x-twilio-signature'] = signature;
    const response = await fetch(url, { method: 'POST', headers, body: new URLSearchParams(params).toString() });
    await response.arrayBuffer();
    return response.status;
  }

  it('sends through the provider when no phone is online, its phone delivers it, and its signed callbacks make the SMS delivered; a forged one is refused', async () => {
    const id = await upstream(fx.tenant.api, 'second gateway');
    await setRoutes([{ target: 'phones' }, { target: id }]);
    const text = `Your code is ${Math.floor(Math.random() * 1e6)}`;
    const smsId = await send(text);

    await eventually('the provider\'s phone sent it', () => [...given().phone.sent.values()].some((out) => out.message === text), 10_000);
    const sent = [...given().phone.sent.values()].find((out) => out.message === text)!;
    expect(sent.phone).to.equal(PHONE);
    await eventually('sent on the first gateway', async () => (await sms(smsId)).status === 'sent', 10_000);

    // While the provider's phone waits for its delivery report, forged callbacks for this very
    // message (unsigned, or signed with another token) are refused and move nothing.
    const message = (await providerMessages()).find((listed) => listed.body === text)!;
    expect(message, 'the provider lists the message').to.not.equal(undefined);
    const forged = { AccountSid: given().accountSid, MessageSid: message.sid, MessageStatus: 'undelivered', ErrorCode: '30005', To: PHONE };
    const callbackUrl = new URL(`/api/upstream/v1/${id}/twilio/status`, fx.baseUrl).toString();
    expect(await postCallback(id, forged, twilio.getExpectedTwilioSignature('0'.repeat(32), callbackUrl, forged))).to.equal(403);
    expect(await postCallback(id, forged, 'bm90IGEgc2lnbmF0dXJl')).to.equal(403);
    expect(await postCallback(id, forged, undefined)).to.equal(403);
    expect((await sms(smsId)).status).to.equal('sent');

    await eventually('delivered on the first gateway', async () => (await sms(smsId)).status === 'delivered', 10_000);
    expect((await providerMessages()).find((listed) => listed.sid === message.sid)!.status).to.equal('delivered');
    expect(given().phone.sendCount.get(sent.smsId), 'sent over the radio once').to.equal(1);
    expect((await linkOf(id)).state).to.equal('ready');
  });

  it('takes a provider that refuses the auth token down: the SMS fails when no rule is left, and moves to the next rule when one is', async () => {
    const WRONG_TOKEN = 'f'.repeat(32);
    const alone = await upstream(fx.tenant.api, 'wrong token', WRONG_TOKEN);
    await setRoutes([{ target: alone }]);
    const stranded = await send('no rule left');
    await eventually('failed', async () => (await sms(stranded)).status === 'failed_send', 10_000);
    expect((await sms(stranded)).reason).to.equal('upstream_refused');
    const link = await linkOf(alone);
    expect(link.state).to.equal('down');
    expect(link.detail).to.match(/credential|auth/i);

    const good = await upstream(fx.tenant.api, 'second gateway');
    const refusing = await upstream(fx.tenant.api, 'wrong token, then the right one', WRONG_TOKEN);
    await setRoutes([{ target: refusing }, { target: good }]);
    const moved = await send('moved on past the wrong token');
    await eventually('delivered through the next rule', async () => (await sms(moved)).status === 'delivered', 10_000);
    expect((await linkOf(refusing)).state).to.equal('down');
    // The refused try (Twilio's 20003, authenticate), then the one through the next rule.
    const attempts = (await fx.tenant.api.get(`/sms/${moved}/attempts`)).body.data as { result: string; error_code: string | null; retried: boolean }[];
    expect(attempts.map(({ result, error_code, retried }) => ({ result, error_code, retried }))).to.deep.equal([
      { result: 'failed', error_code: '20003', retried: true },
      { result: 'sent', error_code: null, retried: false },
    ]);

    const bodies = (await providerMessages()).map((listed) => listed.body);
    expect(bodies).to.include('moved on past the wrong token');
    expect(bodies).not.to.include('no rule left');
  });
});
