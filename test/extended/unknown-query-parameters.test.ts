// The Extended API is strict about the query string: a parameter a route does not declare is a
// 400 naming it, on a route that takes a query string (a list) and on one that takes none alike,
// so that a misspelt or misplaced parameter is never silently ignored. (The legacy family ignores
// them; its own test says why.)
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { detailFields, expectError } from '../support/expectations.ts';

describe('extended API: query parameters a route does not declare', () => {
  const fx = useGateway();

  it('when a route that reads one resource gets one, then it is a 400 naming it', async () => {
    const { device } = await fx.registerDevice();
    const reply = await fx.tenant.api.get(`/devices/${device.id}?_=1732541234`);
    expectError(reply, 400, 'validation_failed');
    expect(detailFields(reply)).to.deep.equal(['_']);
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

  it('when the same routes get no query string, then they answer as ever', async () => {
    const { device } = await fx.registerDevice();
    expect((await fx.tenant.api.get(`/devices/${device.id}`)).status).to.equal(200);
  });
});
