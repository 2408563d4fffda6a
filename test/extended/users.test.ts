// The account's users over HTTP (users:manage): list, create (a one-time password answered once
// when none is given), change role, disable, reset a password, remove. The rules are the users
// service's, which the CLI shares: the last enabled owner stays, nobody disables or removes
// themself, a caller makes nobody more powerful than itself, emails are unique whatever their
// case. Another account's users are 404; a viewer is refused every change.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { expectError, MALFORMED_IDS, UNKNOWN_ID, UUID } from '../support/expectations.ts';
import { loginAs, tryLogin, uniqueEmail, userSession, USER_PASSWORD, type SessionClient } from '../support/session-client.ts';
import { PERMISSIONS } from '../../src/modules/api-keys/permissions.ts';
import { sessionCountOf } from '../support/test-data.ts';

const USER_MEMBERS = ['id', 'email', 'role', 'is_admin', 'must_change_password', 'disabled', 'disabled_at', 'created_at', 'last_login_at'];

describe('extended API: users', function () {
  this.timeout(30_000);
  const fx = useGateway();

  /** An owner of the tenant, logged in. */
  const owner = () => userSession(fx.gateway, fx.tenant.accountId, 'owner');

  async function createUser(by: SessionClient, role: 'owner' | 'viewer', password: string | undefined = USER_PASSWORD) {
    const reply = await by.post('/users', { email: uniqueEmail(), role, ...(password ? { password } : {}) });
    expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
    return reply.body;
  }

  it('an owner creates a user without a password: 201 with a one-time password shown once, which must be changed at first login', async () => {
    const admin = await owner();
    const email = uniqueEmail();
    const created = await admin.post('/users', { email: email.toUpperCase(), role: 'viewer' });
    expect(created.status).to.equal(201);
    expect(Object.keys(created.body)).to.have.members([...USER_MEMBERS, 'one_time_password']);
    expect(created.body).to.include({ email, role: 'viewer', is_admin: false, must_change_password: true, disabled: false, last_login_at: null });
    expect(created.body.id).to.match(UUID);
    expect(created.body.one_time_password).to.be.a('string').with.length.above(20);

    const listed = await admin.get('/users');
    expect(listed.status).to.equal(200);
    const row = listed.body.data.find((user: { id: string }) => user.id === created.body.id);
    expect(Object.keys(row)).to.have.members(USER_MEMBERS);
    expect(JSON.stringify(listed.body)).not.to.contain(created.body.one_time_password).and.not.to.contain('scrypt');

    const session = await loginAs(fx.gateway, email, created.body.one_time_password);
    expectError(await session.get('/sms'), 403, 'password_change_required');
  });

  it('with a password: no one-time password, nothing to change; last_login_at shows after a login', async () => {
    const admin = await owner();
    const created = await createUser(admin, 'owner');
    expect(created).not.to.have.property('one_time_password');
    expect(created.must_change_password).to.equal(false);
    await loginAs(fx.gateway, created.email);
    const row = (await admin.get('/users')).body.data.find((user: { id: string }) => user.id === created.id);
    expect(row.last_login_at).to.be.a('string');
  });

  it('an email taken in any case is 409 email_taken, and nothing is created', async () => {
    const admin = await owner();
    const created = await createUser(admin, 'viewer');
    const again = await admin.post('/users', { email: created.email.toUpperCase(), role: 'owner' });
    expectError(again, 409, 'email_taken');
    // Taken in another account too: emails are unique across the instance.
    const other = await fx.newTenant();
    expectError(await other.api.post('/users', { email: created.email, role: 'viewer' }), 409, 'email_taken');
    expect((await admin.get('/users')).body.data).to.have.length(2);
  });

  it('bad input is a 400 and changes nothing', async () => {
    const admin = await owner();
    for (const body of [
      { email: 'not an address', role: 'viewer' },
      { email: uniqueEmail(), role: 'admin' },
      { email: uniqueEmail(), role: 'viewer', password: 'short' },
      { email: uniqueEmail() },
      { email: uniqueEmail(), role: 'viewer', is_admin: true },
    ]) {
      expectError(await admin.post('/users', body), 400, 'validation_failed');
    }
    // The message belongs to its field, so a form shows it beside the email input.
    const malformed = await admin.post('/users', { email: 'not an address', role: 'viewer' });
    expect(malformed.body.error.details.map((detail: { field: string }) => detail.field)).to.deep.equal(['email']);
    const [user] = (await admin.get('/users')).body.data;
    expectError(await admin.patch(`/users/${user.id}`, {}), 400, 'validation_failed');
    expectError(await admin.patch(`/users/${user.id}`, { role: 'root' }), 400, 'validation_failed');
    expectError(await admin.patch(`/users/${user.id}`, { disabled: 'yes' }), 400, 'validation_failed');
    for (const id of MALFORMED_IDS.filter(Boolean)) expectError(await admin.patch(`/users/${encodeURIComponent(id)}`, { role: 'viewer' }), 400);
    expect((await admin.get('/users')).body.data).to.have.length(1);
  });

  it('a viewer reads nothing of users and changes nothing (403); a key without users:manage is 403', async () => {
    const admin = await owner();
    const target = await createUser(admin, 'viewer');
    const viewer = await userSession(fx.gateway, fx.tenant.accountId, 'viewer');
    expectError(await viewer.get('/users'), 403, 'forbidden');
    expectError(await viewer.post('/users', { email: uniqueEmail(), role: 'viewer' }), 403, 'forbidden');
    expectError(await viewer.patch(`/users/${target.id}`, { role: 'owner' }), 403, 'forbidden');
    expectError(await viewer.post(`/users/${target.id}/reset-password`), 403, 'forbidden');
    expectError(await viewer.delete(`/users/${target.id}`), 403, 'forbidden');
    const key = await fx.keyWith(PERMISSIONS.filter((permission) => permission !== 'users:manage'));
    expectError(await key.get('/users'), 403, 'forbidden');
    const rows = (await admin.get('/users')).body.data;
    expect(rows.find((user: { id: string }) => user.id === target.id)).to.include({ role: 'viewer', disabled: false, must_change_password: false });
  });

  it('another account\'s user is 404 to every route, and never listed', async () => {
    const admin = await owner();
    const other = await fx.newTenant();
    const stranger = await userSession(fx.gateway, other.accountId, 'viewer');
    expect((await admin.get('/users')).body.data.map((user: { id: string }) => user.id)).not.to.include(stranger.userId);
    expectError(await admin.patch(`/users/${stranger.userId}`, { disabled: true }), 404, 'user_not_found');
    expectError(await admin.post(`/users/${stranger.userId}/reset-password`), 404, 'user_not_found');
    expectError(await admin.delete(`/users/${stranger.userId}`), 404, 'user_not_found');
    expectError(await admin.delete(`/users/${UNKNOWN_ID}`), 404, 'user_not_found');
    expect((await stranger.get('/sms')).status, 'the stranger is untouched').to.equal(200);
  });

  it('the last enabled owner cannot be made a viewer, disabled or removed (409 last_owner); with another owner they can', async () => {
    const only = await fx.tenant.api.post('/users', { email: uniqueEmail(), role: 'owner', password: USER_PASSWORD });
    const id = only.body.id;
    const viewer = await fx.tenant.api.post('/users', { email: uniqueEmail(), role: 'viewer', password: USER_PASSWORD });
    expectError(await fx.tenant.api.patch(`/users/${id}`, { role: 'viewer' }), 409, 'last_owner');
    expectError(await fx.tenant.api.patch(`/users/${id}`, { disabled: true }), 409, 'last_owner');
    expectError(await fx.tenant.api.delete(`/users/${id}`), 409, 'last_owner');

    // A disabled owner is no owner to fall back on.
    const second = await fx.tenant.api.post('/users', { email: uniqueEmail(), role: 'owner', password: USER_PASSWORD });
    expect((await fx.tenant.api.patch(`/users/${second.body.id}`, { disabled: true })).status).to.equal(200);
    expectError(await fx.tenant.api.patch(`/users/${id}`, { role: 'viewer' }), 409, 'last_owner');

    expect((await fx.tenant.api.patch(`/users/${viewer.body.id}`, { role: 'owner' })).body.role).to.equal('owner');
    const demoted = await fx.tenant.api.patch(`/users/${id}`, { role: 'viewer' });
    expect(demoted.status).to.equal(200);
    expect(demoted.body.role).to.equal('viewer');
    expect((await fx.tenant.api.delete(`/users/${id}`)).status).to.equal(204);
    expect((await fx.tenant.api.get('/users')).body.data.map((user: { id: string }) => user.id)).to.have.members([viewer.body.id, second.body.id]);
  });

  it('a user cannot disable or remove themself (409 cannot_change_self)', async () => {
    const me = await owner();
    await createUser(me, 'owner');
    expectError(await me.patch(`/users/${me.userId}`, { disabled: true }), 409, 'cannot_change_self');
    expectError(await me.delete(`/users/${me.userId}`), 409, 'cannot_change_self');
    expect((await me.get('/users')).status, 'still logged in').to.equal(200);
  });

  it('a disabled user\'s sessions end at once and their login gets the wrong-password answer; enabled again, they log in', async () => {
    const admin = await owner();
    const victim = await userSession(fx.gateway, fx.tenant.accountId, 'viewer');
    expect((await victim.get('/sms')).status).to.equal(200);

    const disabled = await admin.patch(`/users/${victim.userId}`, { disabled: true });
    expect(disabled.status).to.equal(200);
    expect(disabled.body.disabled).to.equal(true);
    expect(disabled.body.disabled_at).to.be.a('string');
    expectError(await victim.get('/sms'), 401, 'unauthorized');
    expect(await sessionCountOf(fx, victim.userId)).to.equal(0);

    const refused = await tryLogin(fx.gateway, victim.email, USER_PASSWORD);
    const wrong = await tryLogin(fx.gateway, victim.email, 'not the password at all');
    expect(refused.status).to.equal(401);
    expect(refused.body).to.deep.equal(wrong.body);

    expect((await admin.patch(`/users/${victim.userId}`, { disabled: false })).body.disabled).to.equal(false);
    await loginAs(fx.gateway, victim.email);
  });

  it('reset-password answers a new one-time password once, ends the user\'s sessions, and the old password stops working', async () => {
    const admin = await owner();
    const target = await userSession(fx.gateway, fx.tenant.accountId, 'viewer');
    const reset = await admin.post(`/users/${target.userId}/reset-password`);
    expect(reset.status).to.equal(200);
    expect(reset.body.user).to.include({ id: target.userId, must_change_password: true });
    expect(reset.body.one_time_password).to.be.a('string').with.length.above(20);
    expectError(await target.get('/sms'), 401, 'unauthorized');
    expect((await tryLogin(fx.gateway, target.email, USER_PASSWORD)).status).to.equal(401);
    const again = await loginAs(fx.gateway, target.email, reset.body.one_time_password);
    expectError(await again.get('/sms'), 403, 'password_change_required');
  });

  it('a removed user\'s sessions end with them', async () => {
    const admin = await owner();
    const target = await userSession(fx.gateway, fx.tenant.accountId, 'viewer');
    expect((await admin.delete(`/users/${target.userId}`)).status).to.equal(204);
    expectError(await target.get('/sms'), 401, 'unauthorized');
    expectError(await admin.delete(`/users/${target.userId}`), 404, 'user_not_found');
  });

  it('a key makes nobody more powerful than itself: users:manage alone cannot make an owner, nor reset one\'s password', async () => {
    const readsAndUsers = await fx.keyWith([...PERMISSIONS.filter((permission) => permission.endsWith(':read')), 'users:manage']);
    const viewer = await readsAndUsers.post('/users', { email: uniqueEmail(), role: 'viewer' });
    expect(viewer.status, JSON.stringify(viewer.body)).to.equal(201);
    expectError(await readsAndUsers.post('/users', { email: uniqueEmail(), role: 'owner' }), 403, 'forbidden');
    expectError(await readsAndUsers.patch(`/users/${viewer.body.id}`, { role: 'owner' }), 403, 'forbidden');
    const ownerRow = await fx.tenant.api.post('/users', { email: uniqueEmail(), role: 'owner' });
    expectError(await readsAndUsers.post(`/users/${ownerRow.body.id}/reset-password`), 403, 'forbidden');
    expect((await readsAndUsers.post(`/users/${viewer.body.id}/reset-password`)).status).to.equal(200);
  });
});
