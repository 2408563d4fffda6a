// Query parameters a route does not declare. A GET ignores them, as the legacy family does: browsers'
// and HTTP libraries' cache-busters (`_=1732800000000`) are added to reads without the client's
// code knowing. The parameters a GET declares are still checked. The other methods refuse them
// with a 400 naming them, so that a misspelt parameter of a change is never silently dropped.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { detailFields, expectError } from '../support/expectations.ts';

const CACHE_BUSTER = '_=1732800000000';

describe('extended API: query parameters a route does not declare', () => {
  const fx = useGateway();

  it('when a GET of one resource gets a cache-buster, then it answers as without it', async () => {
    const { device } = await fx.registerDevice();
    const reply = await fx.tenant.api.get(`/devices/${device.id}?${CACHE_BUSTER}`);
    expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
    expect(reply.body.id).to.equal(device.id);
  });

  it('when a list gets a cache-buster and a parameter of a tracker, then it answers the same page as without them', async () => {
    const sent = await fx.tenant.api.post('/sms', { phone: '+79161234567', message: 'cached?' });
    expect(sent.status, JSON.stringify(sent.body)).to.equal(201);
    const reply = await fx.tenant.api.get(`/sms?${CACHE_BUSTER}&utm_source=newsletter&limit=1`);
    expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
    expect(reply.body.data.map((sms: { id: string }) => sms.id)).to.deep.equal([sent.body.id]);
  });

  it('when a list gets a cache-buster beside a parameter it declares with a bad value, then that parameter is still a 400', async () => {
    const reply = await fx.tenant.api.get(`/sms?${CACHE_BUSTER}&limit=0`);
    expectError(reply, 400, 'validation_failed');
    expect(detailFields(reply)).to.deep.equal(['limit']);
  });

  it('when a DELETE gets one it does not take (force=true), then it is a 400 and nothing is revoked', async () => {
    const created = await fx.tenant.api.post('/keys', { permissions: ['sms:read'] });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const id = created.body.id as string;
    const reply = await fx.tenant.api.delete(`/keys/${id}?force=true`);
    expectError(reply, 400, 'validation_failed');
    expect(detailFields(reply)).to.deep.equal(['force']);
    expect((await fx.tenant.api.get(`/keys/${id}`)).body.revoked_at).to.equal(null);
  });

  it('when a POST gets one, then it is a 400 naming it and nothing is sent', async () => {
    const reply = await fx.tenant.api.post(`/sms?${CACHE_BUSTER}`, { phone: '+79161234567', message: 'not sent' });
    expectError(reply, 400, 'validation_failed');
    expect(detailFields(reply)).to.deep.equal(['_']);
    expect((await fx.tenant.api.get('/sms')).body.data).to.deep.equal([]);
  });
});
