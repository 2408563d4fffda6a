// A Twilio credential whose auth token this gateway's key cannot decrypt (sealed under another
// WEBHOOK_SECRET_KEY or DATA_DIR) can never authenticate a request. Each request is answered 401
// with Twilio's 20003 and a message saying to rotate the token (not a bare 500), the credential
// is marked so in its view, the log says it once, and a rotated token works again.
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { SecretBox } from '../../src/modules/webhooks/outbound/secret-box.ts';
import { startGateway } from '../support/gateway.ts';
import { useGateway } from '../support/use-gateway.ts';
import { eventually } from '../support/eventually.ts';
import { replaceStoredTwilioToken } from '../support/test-data.ts';
import { createCredential, messagesPath, twilioRequest } from './support.ts';

const UNUSABLE = "twilio credential unusable: its auth token cannot be decrypted with this gateway's key; rotate it";

describe('twilio: an auth token the key cannot decrypt', () => {
  const lines: Record<string, any>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const text of chunk.toString().split('\n')) if (text.trim()) lines.push(JSON.parse(text));
      done();
    },
  });
  const fx = useGateway({ start: (config, clock) => startGateway({ ...config, logLevel: 'warn' }, clock, sink) });

  it('when a request presents it, then 401 20003 says to rotate the token, the credential shows auth_token_unreadable once logged, and a rotated token works', async () => {
    const credential = await createCredential(fx.tenant);
    await replaceStoredTwilioToken(fx, credential.account_sid, new SecretBox(randomBytes(32)).seal(credential.auth_token));
    const list = (token: string) => twilioRequest(fx.baseUrl, 'GET', `${messagesPath(credential.account_sid)}.json`, { sid: credential.account_sid, token });

    for (let i = 0; i < 3; i++) {
      const reply = await list(credential.auth_token);
      expect(reply.status, JSON.stringify(reply.body)).to.equal(401);
      expect(reply.body).to.include({ code: 20003, status: 401 });
      expect(reply.body.message).to.contain('cannot be decrypted').and.to.contain('rotate the token');
    }
    const view = await eventually('the credential marked', async () => {
      const reply = await fx.tenant.api.get('/twilio/credentials');
      const found = (reply.body.data as any[]).find((each) => each.account_sid === credential.account_sid);
      return found?.auth_token_unreadable === true && found;
    });
    expect(view).not.to.have.property('auth_token');
    await eventually('the log line', () => lines.some((line) => line.msg === UNUSABLE));
    expect((await list(credential.auth_token)).status).to.equal(401);
    const said = lines.filter((line) => line.msg === UNUSABLE);
    expect(said, JSON.stringify(lines)).to.have.length(1);
    expect(said[0]).to.include({ accountSid: credential.account_sid, accountId: fx.tenant.accountId });
    expect(JSON.stringify(lines)).not.to.contain(credential.auth_token);

    const rotated = await fx.tenant.api.post(`/twilio/credentials/${credential.account_sid}/rotate`);
    expect(rotated.status, JSON.stringify(rotated.body)).to.equal(200);
    expect(rotated.body.auth_token_unreadable).to.equal(false);
    expect((await list(rotated.body.auth_token as string)).status).to.equal(200);
  });
});
