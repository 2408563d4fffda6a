// Twilio credentials through the Extended API: created with keys:manage, the auth token shown
// once (and stored sealed, never as it is), listed without it, rotated (the old token dies at
// once) and deleted.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { storedTwilioTokenColumn } from '../support/test-data.ts';
import { createCredential, messagesPath, twilioRequest } from './support.ts';

describe('twilio: credentials', () => {
  const fx = useGateway();

  it('creates a credential: AC + 32 hex and a 32-hex token shown once, stored encrypted', async () => {
    const credential = await createCredential(fx.tenant, { friendly_name: 'migration' });
    expect(credential.account_sid).to.match(/^AC[0-9a-f]{32}$/);
    expect(credential.auth_token).to.match(/^[0-9a-f]{32}$/);
    const atRest = await storedTwilioTokenColumn(fx, credential.account_sid);
    expect(atRest).to.match(/^v1:/);
    expect(atRest).not.to.include(credential.auth_token);

    const list = await fx.tenant.api.get('/twilio/credentials');
    expect(list.status).to.equal(200);
    expect(list.body.data).to.have.length(1);
    expect(list.body.data[0]).to.include({ account_sid: credential.account_sid, friendly_name: 'migration' });
    expect(JSON.stringify(list.body)).not.to.include(credential.auth_token);
  });

  it('needs keys:manage', async () => {
    const sender = await fx.keyWith(['sms:send']);
    expect((await sender.post('/twilio/credentials', {})).status).to.equal(403);
    expect((await sender.get('/twilio/credentials')).status).to.equal(403);
  });

  it('refuses an sms_url that is no http(s) URL, and one the destination guard refuses', async () => {
    expect((await fx.tenant.api.post('/twilio/credentials', { sms_url: 'ftp://example.com/x' })).status).to.equal(400);
    const guarded = await fx.tenant.api.post('/twilio/credentials', { sms_url: 'http://127.0.0.1:9/inbound' });
    expect(guarded.status).to.equal(400);
    expect(guarded.body.error.code).to.equal('invalid_webhook_url');
  });

  it('rotates the token: the old one is refused at once, the new one works', async () => {
    const credential = await createCredential(fx.tenant);
    const rotated = await fx.tenant.api.post(`/twilio/credentials/${credential.account_sid}/rotate`);
    expect(rotated.status).to.equal(200);
    expect(rotated.body.auth_token).to.match(/^[0-9a-f]{32}$/).and.not.equal(credential.auth_token);
    const path = `${messagesPath(credential.account_sid)}.json`;
    expect((await twilioRequest(fx.baseUrl, 'GET', path, { sid: credential.account_sid, token: credential.auth_token })).status).to.equal(401);
    expect((await twilioRequest(fx.baseUrl, 'GET', path, { sid: credential.account_sid, token: rotated.body.auth_token })).status).to.equal(200);
  });

  it('deletes a credential; another account cannot see, rotate or delete it', async () => {
    const credential = await createCredential(fx.tenant);
    const other = await fx.newTenant();
    expect((await other.api.post(`/twilio/credentials/${credential.account_sid}/rotate`)).status).to.equal(404);
    expect((await other.api.delete(`/twilio/credentials/${credential.account_sid}`)).status).to.equal(404);
    expect((await other.api.get('/twilio/credentials')).body.data).to.deep.equal([]);
    expect((await fx.tenant.api.delete(`/twilio/credentials/${credential.account_sid}`)).status).to.equal(204);
    expect((await fx.tenant.api.delete(`/twilio/credentials/${credential.account_sid}`)).status).to.equal(404);
    const path = `${messagesPath(credential.account_sid)}.json`;
    expect((await twilioRequest(fx.baseUrl, 'GET', path, { sid: credential.account_sid, token: credential.auth_token })).status).to.equal(401);
  });

  it('describes the credential routes in the OpenAPI document', async () => {
    const doc = await fetch(`${fx.baseUrl}/api/ext/v1/openapi.json`).then((response) => response.json() as Promise<any>);
    expect(Object.keys(doc.paths)).to.include.members(['/api/ext/v1/twilio/credentials', '/api/ext/v1/twilio/credentials/{sid}/rotate', '/api/ext/v1/twilio/credentials/{sid}']);
  });
});
