// The Twilio link (src/modules/upstreams/links/twilio/) against real HTTP:
// - the upstream played by a second gateway, through its own Twilio-compatible API: the SMS is
//   made there and a phone delivers it, the link learns its Sid, and the status callbacks that
//   gateway posts are signed so that the link (and Twilio's own library) accept them, and read as
//   sent then delivered; a wrong auth token takes the link down;
// - the provider's refusals played by a small server of the test: 429 with Retry-After, 500, a
//   reset connection, a timeout, 400 with a Twilio code, the concurrency bound, and the
//   destination guard refusing a private or loopback base URL unless it is allowed.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import twilio from 'twilio';
import { createLogger } from '../../src/common/logger.ts';
import { DestinationGuard } from '../../src/modules/webhooks/outbound/destination-guard.ts';
import { uuidOfMessageSid } from '../../src/modules/twilio/sids.ts';
import type { LinkEvents, LinkStatus, UpstreamIncoming, UpstreamReceipt, UpstreamSubmission } from '../../src/modules/upstreams/links/link.ts';
import { TwilioLink, type TwilioLinkOptions } from '../../src/modules/upstreams/links/twilio/twilio-link.ts';
import type { TwilioLinkSettings } from '../../src/modules/upstreams/links/twilio/settings.ts';
import { readStatusCallback } from '../../src/modules/upstreams/links/twilio/status-callback.ts';
import { verifyTwilioSignature } from '../../src/modules/upstreams/links/twilio/signature.ts';
import { eventually } from '../support/eventually.ts';
import type { Received } from '../support/receiver.ts';
import { useGateway } from '../support/use-gateway.ts';
import { webhookConfig } from '../support/webhooks.ts';
import { createCredential } from '../twilio/support.ts';

const TO = '+79161234567';
const SENDER = '+15005550006';
const TEXT = 'through the upstream, secretly';
const ACCOUNT_SID = `AC${'1'.repeat(32)}`;
const AUTH_TOKEN = 'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6';

/** What a link told its events, and the JSON lines it logged. */
function recorder() {
  const states: LinkStatus[] = [];
  const receipts: UpstreamReceipt[] = [];
  const incoming: UpstreamIncoming[] = [];
  const events: LinkEvents = {
    receipt: (receipt) => void receipts.push(receipt),
    incoming: (message) => void incoming.push(message),
    stateChanged: (status) => void states.push(status),
  };
  const lines: string[] = [];
  const logger = createLogger('debug', { write: (line: string) => void lines.push(line) }, undefined, 'json');
  return { events, logger, lines, states, receipts, incoming };
}

function submission(overrides: Partial<UpstreamSubmission> = {}): UpstreamSubmission {
  return { smsId: randomUUID(), phone: TO, text: TEXT, wantsReceipt: true, ...overrides };
}

function paramsOf(received: Received): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(received.body));
}

describe('upstreams: a Twilio link to a second gateway', () => {
  const fx = useGateway({ config: { webhooks: webhookConfig() } });
  const links: TwilioLink[] = [];
  afterEach(async () => {
    await Promise.all(links.splice(0).map((link) => link.close()));
  });

  function linkTo(settings: Partial<TwilioLinkSettings>, options: Partial<TwilioLinkOptions> = {}) {
    const seen = recorder();
    const link = new TwilioLink(
      { baseUrl: fx.baseUrl, accountSid: ACCOUNT_SID, authToken: AUTH_TOKEN, from: SENDER, ...settings },
      seen.events,
      seen.logger,
      { guard: new DestinationGuard(['127.0.0.1']), ...options },
    );
    links.push(link);
    return { link, ...seen };
  }

  it('submits: accepted with the SMS sid, the SMS is made there and delivered, and its signed callbacks read as sent then delivered', async () => {
    const receiver = await fx.receiver();
    const credential = await createCredential(fx.tenant);
    await fx.connectDevice();
    const { link, states, receipts, lines } = linkTo({ accountSid: credential.account_sid, authToken: credential.auth_token }, { statusCallbackUrl: receiver.url });
    expect(link.status.state).to.equal('connecting');

    const sms = submission();
    const outcome = await link.submit(sms);
    expect(outcome).to.deep.include({ accepted: true, segments: 1 });
    if (!outcome.accepted) throw new Error('not accepted');
    const [sid] = outcome.providerIds;
    expect(sid).to.match(/^SM[0-9a-f]{32}$/);
    expect(states.map((status) => status.state)).to.deep.equal(['ready']);
    const made = await fx.tenant.api.get(`/sms/${uuidOfMessageSid(sid!)}`);
    expect(made.status).to.equal(200);
    expect(made.body).to.include({ phone: TO, message: TEXT });

    // The other gateway calls back at each status; the link takes the signed ones and keeps sent and delivered.
    await receiver.waitFor(1, (received) => paramsOf(received).MessageStatus === 'delivered');
    const callbacks = receiver.received;
    for (const received of callbacks) {
      const params = paramsOf(received);
      const signature = String(received.headers['x-twilio-signature']);
      expect(params.MessageSid).to.equal(sid);
      expect(verifyTwilioSignature(receiver.url, params, signature, credential.auth_token), received.body).to.equal(true);
      expect(twilio.validateRequest(credential.auth_token, signature, receiver.url, params)).to.equal(true);
      expect(verifyTwilioSignature(receiver.url, params, signature, AUTH_TOKEN)).to.equal(false);
      expect(await link.receiveStatusCallback(receiver.url, params, signature)).to.equal(readStatusCallback(params) ? 'taken' : 'ignored');
    }
    expect(callbacks.map((received) => paramsOf(received).MessageStatus)).to.deep.equal(['queued', 'sending', 'sent', 'delivered']);
    expect(receipts.map((receipt) => [receipt.providerId, receipt.outcome, receipt.errorCode])).to.deep.equal([
      [sid, 'sent', null],
      [sid, 'delivered', null],
    ]);
    const forged = paramsOf(callbacks[3]!);
    expect(await link.receiveStatusCallback(receiver.url, { ...forged, MessageStatus: 'undelivered' }, String(callbacks[3]!.headers['x-twilio-signature']))).to.equal('forged');

    // Sent again (a retry after a timeout), the SMS id as idempotency token answers the first message.
    const again = await link.submit(sms);
    expect(again).to.deep.equal(outcome);
    expect((await fx.tenant.api.get('/sms')).body.data).to.have.length(1);

    // Nothing secret or personal in the link's log lines.
    const log = lines.join('\n');
    expect(log).to.include('"state":"ready"');
    for (const secret of [credential.auth_token, TEXT, TO, Buffer.from(`${credential.account_sid}:${credential.auth_token}`).toString('base64')]) {
      expect(log).not.to.include(secret);
    }
  });

  it('a wrong auth token: never, and the link is down with the reason; later submissions are refused at once', async () => {
    const credential = await createCredential(fx.tenant);
    const { link, states } = linkTo({ accountSid: credential.account_sid, authToken: '0'.repeat(32) });
    const outcome = await link.submit(submission());
    expect(outcome).to.deep.equal({ accepted: false, retry: 'never', code: '20003', detail: 'the provider refused the credentials (check accountSid and authToken)' });
    expect(link.status).to.include({ state: 'down', detail: 'the provider refused the credentials (check accountSid and authToken)' });
    expect(states.map((status) => status.state)).to.deep.equal(['down']);
    const started = Date.now();
    expect(await link.submit(submission())).to.include({ retry: 'never', code: '20003' });
    expect(Date.now() - started).to.be.below(50);
    expect((await fx.tenant.api.get('/sms')).body.data).to.deep.equal([]);
  });
});

/** A provider played by the test: each request is answered by `handle`, and counted. */
class FakeProvider {
  readonly requests: { path: string; headers: IncomingMessage['headers']; params: Record<string, string> }[] = [];
  inFlight = 0;
  mostInFlight = 0;
  handle: (request: IncomingMessage, response: ServerResponse, index: number) => void = (_, response) => created(response);
  private server: Server | undefined;

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        this.inFlight++;
        this.mostInFlight = Math.max(this.mostInFlight, this.inFlight);
        response.on('close', () => this.inFlight--);
        const index = this.requests.push({ path: request.url ?? '', headers: request.headers, params: Object.fromEntries(new URLSearchParams(body)) }) - 1;
        this.handle(request, response, index);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
  }

  get port(): number {
    return (this.server!.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

function created(response: ServerResponse, sid = `SM${randomUUID().replace(/-/g, '')}`): void {
  response.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ sid, status: 'queued', num_segments: '2' }));
}

function twilioError(response: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify({ code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status }));
}

describe('upstreams: a Twilio link against a provider that refuses', () => {
  let provider: FakeProvider;
  const links: TwilioLink[] = [];
  beforeEach(async () => {
    provider = new FakeProvider();
    await provider.start();
  });
  afterEach(async () => {
    await Promise.all(links.splice(0).map((link) => link.close()));
    await provider.stop();
  });

  function linkTo(settings: Partial<TwilioLinkSettings> = {}, options: Partial<TwilioLinkOptions> = {}, allowed = ['127.0.0.1']) {
    const seen = recorder();
    const link = new TwilioLink(
      { baseUrl: `http://127.0.0.1:${provider.port}`, accountSid: ACCOUNT_SID, authToken: AUTH_TOKEN, from: SENDER, ...settings },
      seen.events,
      seen.logger,
      { guard: new DestinationGuard(allowed), statusCallbackUrl: 'https://gw.example/upstreams/u1/status', ...options },
    );
    links.push(link);
    return { link, ...seen };
  }

  it('sends the request Twilio expects: the path, HTTP Basic, a form, the SMS id as idempotency token', async () => {
    const { link } = linkTo();
    const sms = submission();
    expect(await link.submit(sms)).to.deep.include({ accepted: true, segments: 2 });
    const [request] = provider.requests;
    expect(request!.path).to.equal(`/2010-04-01/Accounts/${ACCOUNT_SID}/Messages.json`);
    expect(request!.headers.authorization).to.equal(`Basic ${Buffer.from(`${ACCOUNT_SID}:${AUTH_TOKEN}`).toString('base64')}`);
    expect(request!.headers['content-type']).to.equal('application/x-www-form-urlencoded');
    expect(request!.headers['i-twilio-idempotency-token']).to.equal(sms.smsId);
    expect(request!.params).to.deep.equal({ To: TO, From: SENDER, Body: TEXT, StatusCallback: 'https://gw.example/upstreams/u1/status' });
  });

  it('429 with Retry-After: later with retryAfterMs, throttled; the next submission waits it out and goes through', async () => {
    provider.handle = (_, response, index) => (index === 1 ? twilioError(response, 429, 20429, 'Too Many Requests', { 'retry-after': '1' }) : created(response));
    const { link, states } = linkTo();
    expect(await link.submit(submission())).to.include({ accepted: true });
    expect(await link.submit(submission())).to.deep.equal({ accepted: false, retry: 'later', code: '20429', detail: 'Too Many Requests', retryAfterMs: 1000 });
    expect(link.status).to.include({ state: 'throttled', detail: 'Too Many Requests' });
    const waited = Date.now();
    expect(await link.submit(submission())).to.include({ accepted: true });
    expect(Date.now() - waited).to.be.at.least(900);
    await eventually('the throttle over', () => link.status.state === 'ready');
    expect(states.map((status) => status.state)).to.deep.equal(['ready', 'throttled', 'ready']);
  });

  it('500, a reset connection and a timeout are later; three in a row take the link down, and it answers later at once', async () => {
    provider.handle = (request, response, index) => {
      if (index === 0) return twilioError(response, 500, 20500, 'Internal Server Error');
      if (index === 1) return request.socket.destroy();
      // Never answered: the link's timeout ends it.
    };
    const { link, states } = linkTo({}, { timeoutMs: 300 });
    expect(await link.submit(submission())).to.deep.equal({ accepted: false, retry: 'later', code: '20500', detail: 'Internal Server Error' });
    expect(await link.submit(submission())).to.include({ accepted: false, retry: 'later' });
    expect(link.status.state).to.equal('connecting');
    expect(await link.submit(submission())).to.deep.equal({ accepted: false, retry: 'later', code: 'timeout', detail: 'the provider did not answer in time' });
    expect(link.status).to.include({ state: 'down', detail: 'the provider failed 3 requests in a row; the last: the provider did not answer in time' });
    const refused = await link.submit(submission());
    expect(refused).to.include({ accepted: false, retry: 'later', code: 'down' });
    expect(provider.requests).to.have.length(3);
    // Once the backoff (1 s) passed, one submission goes out as the probe and brings the link back.
    provider.handle = (_, response) => created(response);
    await new Promise((resolve) => setTimeout(resolve, (refused as { retryAfterMs: number }).retryAfterMs));
    expect(await link.submit(submission())).to.include({ accepted: true });
    expect(states.map((status) => status.state)).to.deep.equal(['down', 'ready']);
  });

  it("400 with Twilio's code is never, with that code; the provider works, so the link is ready", async () => {
    provider.handle = (_, response) => twilioError(response, 400, 21211, "The 'To' number +79161234567 is not a valid phone number.");
    const { link, lines } = linkTo();
    expect(await link.submit(submission())).to.deep.equal({ accepted: false, retry: 'never', code: '21211', detail: "The 'To' number +7916*****67 is not a valid phone number." });
    expect(link.status.state).to.equal('ready');
    expect(lines.join('\n')).to.include('"code":"21211"').and.not.include(TO);
  });

  it('keeps at most maxConcurrent requests on their way', async () => {
    provider.handle = (_, response) => void setTimeout(() => created(response), 30);
    const { link } = linkTo({ maxConcurrent: 3, throughputPerSecond: 10_000 });
    const outcomes = await Promise.all(Array.from({ length: 12 }, () => link.submit(submission())));
    expect(outcomes.every((outcome) => outcome.accepted)).to.equal(true);
    expect(provider.requests).to.have.length(12);
    expect(provider.mostInFlight).to.equal(3);
  });

  it('refuses a base URL on a loopback, private or name-resolved loopback address unless the guard allows it, without a request', async () => {
    for (const [baseUrl, refusal] of [
      [`http://127.0.0.1:${provider.port}`, /loopback address/],
      ['http://10.20.30.40:8080', /private address/],
      [`http://[::ffff:127.0.0.1]:${provider.port}`, /loopback/],
      [`http://localhost:${provider.port}`, /resolves only to addresses/],
    ] as const) {
      const { link, states } = linkTo({ baseUrl }, {}, []);
      const outcome = await link.submit(submission());
      expect(outcome, baseUrl).to.include({ accepted: false, retry: 'never', code: 'destination_refused' });
      expect((outcome as { detail: string }).detail, baseUrl).to.match(refusal);
      expect(link.status.state, baseUrl).to.equal('down');
      expect(states.map((status) => status.state)).to.deep.equal(['down']);
      expect(await link.submit(submission()), baseUrl).to.include({ retry: 'never', code: 'destination_refused' });
    }
    expect(provider.requests).to.deep.equal([]);
    // Allowed by the same setting as webhooks (WEBHOOK_ALLOWED_HOSTS), by address or by name.
    expect(await linkTo({}, {}, ['127.0.0.0/8']).link.submit(submission())).to.include({ accepted: true });
    expect(await linkTo({ baseUrl: `http://localhost:${provider.port}` }, {}, ['localhost']).link.submit(submission())).to.include({ accepted: true });
  });

  it('closed, it answers later at once, and submissions waiting their turn are answered too', async () => {
    provider.handle = (_, response) => void setTimeout(() => created(response), 50);
    const { link, states } = linkTo({ maxConcurrent: 1 });
    const pending = [link.submit(submission()), link.submit(submission())];
    await eventually('the first request out', () => provider.requests.length === 1);
    await link.close();
    const [first, second] = await Promise.all(pending);
    expect(first, 'the request on its way still counts').to.include({ accepted: true });
    expect(second).to.deep.equal({ accepted: false, retry: 'later', code: 'closed', detail: 'the link is closed' });
    expect(await link.submit(submission())).to.include({ retry: 'later', code: 'closed' });
    expect(states.map((status) => status.state)).to.deep.equal(['closed']);
    expect(provider.requests).to.have.length(1);
  });
});
