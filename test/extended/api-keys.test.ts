// API keys over HTTP: create with chosen permissions (the key shown once, and never more than
// the calling key holds), list (prefix, permissions, created, last used; never a secret), read,
// revoke (the revoked key is refused at once, a second revoke changes nothing). Everything
// needs keys:manage; another account's keys are 404. Run with TEST_DATABASE=pglite, this shows
// that a second API key can be made and revoked while the gateway runs on the embedded
// database.
import { expect } from 'chai';
import { PERMISSIONS, type Permission } from '../../src/modules/api-keys/permissions.ts';
import { useGateway } from '../support/use-gateway.ts';
import { ApiClient, type Reply } from '../support/tenant.ts';
import { detailFields, expectError, expectIsoTimestamp, MALFORMED_IDS, UNKNOWN_ID, UUID } from '../support/expectations.ts';
import { eventually } from '../support/eventually.ts';

const KEY = /^(sgw_[0-9a-f]{10})_[A-Za-z0-9_-]{43}$/;
const VIEW_MEMBERS = ['id', 'prefix', 'name', 'permissions', 'created_at', 'last_used_at', 'revoked_at'];

/** The body is a key's view: exactly its members, no secret, no hash. */
function expectKeyView(body: any): void {
  expect(Object.keys(body)).to.have.members(VIEW_MEMBERS);
  expect(body.id).to.match(UUID);
  expect(body.prefix).to.match(/^sgw_[0-9a-f]{10}$/);
  expectIsoTimestamp(body.created_at, 'created_at');
}

/** Neither the whole key, nor its secret part, nor anything named like a secret or hash. */
function expectNoSecret(reply: Reply, keys: string[]): void {
  const text = JSON.stringify(reply.body);
  for (const key of keys) {
    expect(text).not.to.contain(key);
    expect(text).not.to.contain(key.slice('sgw_0123456789_'.length));
  }
  expect(text).not.to.match(/"(key|secret[^"]*|[^"]*hash[^"]*)":/i);
}

describe('extended API: API keys', () => {
  const fx = useGateway();

  /** A key of the tenant made over HTTP by `by` (the tenant's all-permission key by default). */
  async function createKey(permissions: Permission[], name?: string, by: ApiClient = fx.tenant.api): Promise<{ body: any; client: ApiClient }> {
    const reply = await by.post('/keys', { permissions, ...(name !== undefined ? { name } : {}) });
    expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
    return { body: reply.body, client: new ApiClient(fx.tenant.api.baseUrl, reply.body.key) };
  }

  describe('POST /keys', () => {
    it('when permissions are given, then it answers 201 with the key once, and the key works at once for what it grants only', async () => {
      const reply = await fx.tenant.api.post('/keys', { name: 'reporting', permissions: ['devices:read', 'sms:send'] });
      expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
      expect(Object.keys(reply.body)).to.have.members(['key', ...VIEW_MEMBERS]);
      const { key, ...view } = reply.body;
      expectKeyView(view);
      expect(key).to.match(KEY);
      expect(KEY.exec(key)![1]).to.equal(view.prefix);
      expect(view).to.include({ name: 'reporting', last_used_at: null, revoked_at: null });
      expect(view.permissions).to.have.members(['devices:read', 'sms:send']);

      const created = new ApiClient(fx.tenant.api.baseUrl, key);
      expect((await created.get('/devices')).status).to.equal(200);
      expectError(await created.get('/sms'), 403, 'forbidden');
      expectError(await created.get('/keys'), 403, 'forbidden');

      // Shown once: reading the key back never gives the secret.
      const read = await fx.tenant.api.get(`/keys/${view.id}`);
      expect(read.status).to.equal(200);
      expectNoSecret(read, [key]);
    });

    it('when no name is given, then the key is created with an empty name', async () => {
      const { body } = await createKey(['sms:read']);
      expect(body.name).to.equal('');
    });

    it('when a key asks for permissions it does not hold, then it is 403 naming them and no key is made', async () => {
      const { client: manager } = await createKey(['keys:manage', 'sms:read']);
      const before = (await fx.tenant.api.get('/keys')).body.data.length;
      const reply = await manager.post('/keys', { permissions: ['sms:read', 'sms:send', 'webhooks:write'] });
      expectError(reply, 403, 'forbidden');
      expect(reply.body.error.message).to.contain('sms:send').and.to.contain('webhooks:write');
      expect(reply.body.error.message).not.to.contain('sms:read');
      expect((await fx.tenant.api.get('/keys')).body.data).to.have.length(before);
    });

    it('when a key grants permissions it holds, keys:manage included, then the new key can manage keys too', async () => {
      const { client: manager } = await createKey(['keys:manage', 'sms:read']);
      const { client: child } = await createKey(['keys:manage'], 'child', manager);
      expect((await child.get('/keys')).status).to.equal(200);
      expectError(await child.post('/keys', { permissions: ['sms:read'] }), 403, 'forbidden');
    });

    it('when a permission is not one, then it is 400 listing the permissions there are', async () => {
      const reply = await fx.tenant.api.post('/keys', { permissions: ['sms:read', 'sms:everything'] });
      expectError(reply, 400, 'validation_failed');
      expect(detailFields(reply)).to.deep.equal(['permissions.1']);
      for (const permission of PERMISSIONS) expect(reply.body.error.message).to.contain(permission);
    });

    it('when the body is otherwise invalid, then it is 400 naming the field', async () => {
      const cases: [unknown, string][] = [
        [{ permissions: [] }, 'permissions'],
        [{}, 'permissions'],
        [{ permissions: ['sms:read', 'sms:read'] }, 'permissions'],
        [{ permissions: 'sms:read' }, 'permissions'],
        [{ permissions: ['sms:read'], name: 'x'.repeat(101) }, 'name'],
        [{ permissions: ['sms:read'], name: 7 }, 'name'],
        [{ permissions: ['sms:read'], account_id: UNKNOWN_ID }, 'account_id'],
      ];
      for (const [body, field] of cases) {
        const reply = await fx.tenant.api.post('/keys', body);
        expectError(reply, 400, 'validation_failed');
        expect(detailFields(reply), JSON.stringify(body)).to.include(field);
      }
      expectError(await fx.tenant.api.post('/keys', '{"permissions": ['), 400, 'invalid_json');
      expect((await fx.tenant.api.get('/keys')).body.data, 'no key made by a refused request').to.have.length(1);
    });
  });

  describe('GET /keys', () => {
    it('when keys exist, then they are listed newest first, paged, revoked ones included, with no secret anywhere', async () => {
      const made = [];
      for (const name of ['one', 'two', 'three']) made.push(await createKey(['sms:read'], name));
      expect((await fx.tenant.api.delete(`/keys/${made[0]!.body.id}`)).status).to.equal(200);

      const seen: any[] = [];
      const pages: Reply[] = [];
      let cursor: string | null = null;
      do {
        const reply: Reply = await fx.tenant.api.get(`/keys?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
        expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
        expect(Object.keys(reply.body)).to.have.members(['data', 'next_cursor']);
        pages.push(reply);
        seen.push(...reply.body.data);
        cursor = reply.body.next_cursor;
      } while (cursor && pages.length < 10);

      expect(pages).to.have.length(2);
      seen.forEach(expectKeyView);
      // The tenant's own key (made first, by the test setup) and the three made here.
      expect(seen.map((key) => key.name)).to.deep.equal(['three', 'two', 'one', '']);
      expect(seen.find((key) => key.name === 'one').revoked_at).to.be.a('string');
      expect(seen.find((key) => key.name === 'two').revoked_at).to.equal(null);
      for (const page of pages) expectNoSecret(page, [fx.tenant.key, ...made.map((each) => each.body.key)]);
    });

    it('when revoked=false or revoked=true is asked, then only working or only revoked keys are listed', async () => {
      const kept = await createKey(['sms:read'], 'kept');
      const gone = await createKey(['sms:read'], 'gone');
      await fx.tenant.api.delete(`/keys/${gone.body.id}`);
      const tenantKey = (await fx.tenant.api.get('/keys')).body.data.at(-1).id;
      const working = await fx.tenant.api.get('/keys?revoked=false');
      expect(working.body.data.map((key: any) => key.id)).to.deep.equal([kept.body.id, tenantKey]);
      const revoked = await fx.tenant.api.get('/keys?revoked=true');
      expect(revoked.body.data.map((key: any) => key.id)).to.deep.equal([gone.body.id]);
      expectError(await fx.tenant.api.get('/keys?revoked=maybe'), 400, 'validation_failed');
      expectError(await fx.tenant.api.get('/keys?cursor=not-a-cursor'), 400, 'validation_failed');
      expectError(await fx.tenant.api.get('/keys?limit=0'), 400, 'validation_failed');
    });

    it('when another account has keys, then they are not listed', async () => {
      const other = await fx.newTenant();
      const reply = await fx.tenant.api.get('/keys');
      expect(reply.body.data).to.have.length(1);
      expect(reply.body.data.map((key: any) => key.prefix)).not.to.include(KEY.exec(other.key)![1]);
    });

    it('when a key is used, then its last_used_at is recorded', async () => {
      const { body, client } = await createKey(['devices:read']);
      expect((await client.get('/devices')).status).to.equal(200);
      // Written beside the request, not inside it (at most once a minute per key): wait for it.
      const used = await eventually('last_used_at to be recorded', async () => {
        const reply = await fx.tenant.api.get(`/keys/${body.id}`);
        return reply.body.last_used_at === null ? undefined : reply.body.last_used_at;
      });
      expectIsoTimestamp(used, 'last_used_at');
      expect(Date.parse(used)).to.be.at.least(Date.parse(body.created_at));
    });
  });

  describe('GET /keys/{id}', () => {
    it('when the key is the account\'s, then it answers its view', async () => {
      const { body } = await createKey(['webhooks:read'], 'hooks');
      const reply = await fx.tenant.api.get(`/keys/${body.id}`);
      expect(reply.status).to.equal(200);
      expectKeyView(reply.body);
      const { key: _key, ...view } = body;
      expect(reply.body).to.deep.equal(view);
    });

    it('when the key is another account\'s, unknown or malformed, then it is 404 or 400', async () => {
      const other = await fx.newTenant();
      const otherKey = (await other.api.get('/keys')).body.data[0];
      expectError(await fx.tenant.api.get(`/keys/${otherKey.id}`), 404, 'key_not_found');
      expectError(await fx.tenant.api.get(`/keys/${UNKNOWN_ID}`), 404, 'key_not_found');
      for (const id of MALFORMED_IDS) expectError(await fx.tenant.api.get(`/keys/${encodeURIComponent(id)}`), 400, 'invalid_id');
    });
  });

  describe('DELETE /keys/{id}', () => {
    it('when a working key is revoked, then it answers the key with revoked_at and the key gets 401 at once', async () => {
      const { body, client } = await createKey(['devices:read']);
      // Used first, so that the gateway holds it in its cache of checked keys.
      expect((await client.get('/devices')).status).to.equal(200);
      const reply = await fx.tenant.api.delete(`/keys/${body.id}`);
      expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
      expectKeyView(reply.body);
      expectIsoTimestamp(reply.body.revoked_at, 'revoked_at');
      expectNoSecret(reply, [body.key]);
      expectError(await client.get('/devices'), 401, 'unauthorized');
      expect((await fx.tenant.api.get('/devices')).status, 'the revoking key still works').to.equal(200);
    });

    it('when a revoked key is revoked again, then it answers 200 with the key unchanged', async () => {
      const { body } = await createKey(['sms:read']);
      const first = await fx.tenant.api.delete(`/keys/${body.id}`);
      const again = await fx.tenant.api.delete(`/keys/${body.id}`);
      expect(again.status).to.equal(200);
      expect(again.body).to.deep.equal(first.body);
    });

    it('when a key revokes itself, then it answers 200 and the key gets 401 from then on', async () => {
      const { body, client } = await createKey(['keys:manage']);
      const reply = await client.delete(`/keys/${body.id}`);
      expect(reply.status).to.equal(200);
      expect(reply.body.revoked_at).to.be.a('string');
      expectError(await client.get('/keys'), 401, 'unauthorized');
    });

    it('when the key is another account\'s, then it is 404 and that key keeps working', async () => {
      const other = await fx.newTenant();
      const otherKey = (await other.api.get('/keys')).body.data[0];
      expectError(await fx.tenant.api.delete(`/keys/${otherKey.id}`), 404, 'key_not_found');
      expectError(await fx.tenant.api.delete(`/keys/${UNKNOWN_ID}`), 404, 'key_not_found');
      expectError(await fx.tenant.api.delete('/keys/abc'), 400, 'invalid_id');
      expect((await other.api.get('/keys')).status).to.equal(200);
      expect((await other.api.get(`/keys/${otherKey.id}`)).body.revoked_at).to.equal(null);
    });
  });

  describe('permission keys:manage', () => {
    it('when a key lacks keys:manage, then every keys operation is 403, whatever else it holds', async () => {
      const { body: target } = await createKey(['sms:read']);
      const { client } = await createKey(PERMISSIONS.filter((permission) => permission !== 'keys:manage'));
      for (const reply of [
        await client.post('/keys', { permissions: ['sms:read'] }),
        await client.get('/keys'),
        await client.get(`/keys/${target.id}`),
        await client.delete(`/keys/${target.id}`),
      ]) {
        expectError(reply, 403, 'forbidden');
        expect(reply.body.error.message).to.contain('keys:manage');
      }
      expect((await fx.tenant.api.get(`/keys/${target.id}`)).body.revoked_at, 'not revoked by the refused request').to.equal(null);
    });

    it('when no key or a bad key is given, then it is 401', async () => {
      const anonymous = new ApiClient(fx.tenant.api.baseUrl, undefined);
      expectError(await anonymous.get('/keys'), 401, 'unauthorized');
      expectError(await anonymous.post('/keys', { permissions: ['sms:read'] }), 401, 'unauthorized');
    });
  });
});
