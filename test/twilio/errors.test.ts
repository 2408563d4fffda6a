// Errors in Twilio's shape ({ code, message, more_info, status }) with Twilio's codes, and never a
// 500 for bad input. Wrong credentials are 401 20003 and count in the auth throttle: past the
// limit an address is answered 429 while the right credential still works elsewhere.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { createCredential, messagesPath, twilioClient, twilioRequest, type Credential } from './support.ts';
import { BLANK_PAGE_TOKEN } from '../../src/api/twilio/api.ts';

const TO = '+79161234567';

function expectTwilioError(reply: { status: number; body: any }, status: number, code: number): void {
  expect(reply.status, JSON.stringify(reply.body)).to.equal(status);
  expect(reply.body).to.have.keys(['code', 'message', 'more_info', 'status']);
  expect(reply.body).to.include({ code, status, more_info: `https://www.twilio.com/docs/errors/${code}` });
  expect(reply.body.message).to.be.a('string').and.not.equal('');
}

describe('twilio: errors', () => {
  const fx = useGateway({ config: { authThrottle: { failureLimit: 20, windowMs: 60_000, hardLimit: 1000, credentialFailureLimit: 1000, credentialWindowMs: 60_000, mqttRefusalDelayMs: 10 } } });
  let credential: Credential;
  let auth: { sid: string; token: string };
  const create = (params: Record<string, string>) => twilioRequest(fx.baseUrl, 'POST', `${messagesPath(credential.account_sid)}.json`, auth, params);

  beforeEach(async () => {
    credential = await createCredential(fx.tenant);
    auth = { sid: credential.account_sid, token: credential.auth_token };
  });

  it('21211 for a To that is no phone number, 21604 for none', async () => {
    expectTwilioError(await create({ To: 'not a number', Body: 'hi' }), 400, 21211);
    expectTwilioError(await create({ Body: 'hi' }), 400, 21604);
  });

  it('21602 without a Body, 21617 for a Body past the limit', async () => {
    expectTwilioError(await create({ To: TO }), 400, 21602);
    expectTwilioError(await create({ To: TO, Body: '' }), 400, 21602);
    expectTwilioError(await create({ To: TO, Body: 'x'.repeat(1601) }), 400, 21617);
  });

  it('20404 for a Sid that names no message of the account, or is no Sid', async () => {
    const path = messagesPath(credential.account_sid);
    expectTwilioError(await twilioRequest(fx.baseUrl, 'GET', `${path}/SM${'0'.repeat(32)}.json`, auth), 404, 20404);
    expectTwilioError(await twilioRequest(fx.baseUrl, 'GET', `${path}/not-a-sid.json`, auth), 404, 20404);
    expectTwilioError(await twilioRequest(fx.baseUrl, 'DELETE', `${path}/SM${'0'.repeat(32)}.json`, auth), 404, 20404);
    expectTwilioError(await twilioRequest(fx.baseUrl, 'POST', `${path}/SM${'0'.repeat(32)}.json`, auth, { Status: 'canceled' }), 404, 20404);
  });

  it('400 with a fitting code for the rest of bad input, never a 500', async () => {
    const path = messagesPath(credential.account_sid);
    expectTwilioError(await create({ To: TO, Body: 'hi', StatusCallback: 'not a url' }), 400, 21609);
    expectTwilioError(await create({ To: TO, Body: 'hi', StatusCallback: 'http://127.0.0.1:9/hook' }), 400, 21609);
    expectTwilioError(await create({ To: TO, Body: 'hi', SendAt: '2030-01-01T00:00:00Z' }), 400, 35111);
    expectTwilioError(await create({ To: TO, Body: 'hi', SendAt: 'tomorrow', ScheduleType: 'fixed' }), 400, 35114);
    expectTwilioError(await create({ To: TO, Body: 'hi', ValidityPeriod: '-5' }), 400, 20001);
    expectTwilioError(await create({ To: TO, Body: 'hi', MediaUrl: 'https://example.com/cat.jpg' }), 400, 21620);
    expectTwilioError(await create({ To: TO, Body: 'hi\u0000there' }), 400, 20001);
    expectTwilioError(await twilioRequest(fx.baseUrl, 'GET', `${path}.json?PageSize=0`, auth), 400, 20001);
    expectTwilioError(await twilioRequest(fx.baseUrl, 'GET', `${path}.json?PageToken=garbage`, auth), 400, 20001);
    // A blank PageToken is no first page: a client building it from a last page would loop.
    for (const blank of ['', '%20']) {
      const refused = await twilioRequest(fx.baseUrl, 'GET', `${path}.json?PageSize=5&PageToken=${blank}`, auth);
      expectTwilioError(refused, 400, 20001);
      expect(refused.body.message).to.equal(BLANK_PAGE_TOKEN);
    }
    expectTwilioError(await twilioRequest(fx.baseUrl, 'GET', `${path}.json?DateSent=yesterday`, auth), 400, 20001);
    expectTwilioError(await twilioRequest(fx.baseUrl, 'POST', `${path}/SM${'0'.repeat(32)}.json`, auth, { Status: 'sent' }), 400, 20001);
    const json = await fetch(`${fx.baseUrl}${path}.json`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${auth.sid}:${auth.token}`).toString('base64')}`, 'content-type': 'application/json' },
      body: JSON.stringify({ To: TO, Body: 'hi' }),
    });
    expect(json.status).to.equal(415);
    expect(((await json.json()) as { code: number }).code).to.equal(20001);
  });

  it('cancelling a message a phone has taken is 409', async () => {
    await fx.connectDevice();
    const client = twilioClient(fx.baseUrl, credential);
    const created = await client.messages.create({ to: TO, body: 'too late' });
    for (let i = 0; i < 100 && (await client.messages(created.sid).fetch()).status !== 'delivered'; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    const error = await client.messages(created.sid).update({ status: 'canceled' }).catch((e: unknown) => e);
    expect(error).to.include({ status: 409 });
  });

  it('401 20003 for a wrong token, an unknown AccountSid, no credentials, or another AccountSid in the path', async () => {
    const path = `${messagesPath(credential.account_sid)}.json`;
    expectTwilioError(await twilioRequest(fx.baseUrl, 'GET', path, { sid: credential.account_sid, token: '0'.repeat(32) }), 401, 20003);
    expectTwilioError(await twilioRequest(fx.baseUrl, 'GET', path, undefined), 401, 20003);
    const unknown = `AC${'1'.repeat(32)}`;
    expectTwilioError(await twilioRequest(fx.baseUrl, 'GET', `${messagesPath(unknown)}.json`, { sid: unknown, token: credential.auth_token }), 401, 20003);
    const other = await createCredential(fx.tenant);
    expectTwilioError(await twilioRequest(fx.baseUrl, 'GET', `${messagesPath(other.account_sid)}.json`, auth), 401, 20003);
    const reply = await twilioRequest(fx.baseUrl, 'GET', path, { sid: credential.account_sid, token: 'wrong' });
    expect(reply.headers.get('www-authenticate')).to.match(/^Basic/);
    const error = await twilioClient(fx.baseUrl, { ...credential, auth_token: 'f'.repeat(32) }).messages.list().catch((e: unknown) => e);
    expect(error).to.include({ status: 401, code: 20003 });
  });

  it('wrong credentials are throttled: past the limit the address is answered 429 with Retry-After', async () => {
    const path = `${messagesPath(credential.account_sid)}.json`;
    const statuses: number[] = [];
    for (let i = 0; i < 25; i++) statuses.push((await twilioRequest(fx.baseUrl, 'GET', path, { sid: credential.account_sid, token: `wrong${i}` })).status);
    expect(statuses.slice(0, 4)).to.deep.equal([401, 401, 401, 401]);
    expect(statuses.slice(-1)).to.deep.equal([429]);
    const refused = await twilioRequest(fx.baseUrl, 'GET', path, { sid: credential.account_sid, token: 'wrong again' });
    expectTwilioError(refused, 429, 20429);
    expect(Number(refused.headers.get('retry-after'))).to.be.above(0);
  });
});
