// Accounts over HTTP, for the instance administrator only (a session whose user has is_admin):
// list with user and device counts, open an account with its first owner (a one-time password
// answered once), rename, disable and enable. A disabled account's keys and sessions are 403
// account_disabled and its users cannot log in. API keys are 403 forbidden, other users 403
// admin_only.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { expectError, UNKNOWN_ID } from '../support/expectations.ts';
import { loginAs, tryLogin, uniqueEmail, userSession, USER_PASSWORD } from '../support/session-client.ts';
import { smsRowsOf } from '../support/test-data.ts';

const ACCOUNT_MEMBERS = ['id', 'name', 'created_at', 'disabled', 'disabled_at', 'users', 'devices', 'max_send_attempts', 'yours'];

describe('extended API: accounts (instance administrator)', function () {
  this.timeout(30_000);
  const fx = useGateway();

  const admin = () => userSession(fx.gateway, fx.tenant.accountId, 'owner', { isAdmin: true });
  const uniqueName = () => `acct-${Math.random().toString(36).slice(2, 10)}`;

  it('lists every account with how many users and devices it has', async () => {
    const session = await admin();
    const other = await fx.newTenant();
    await fx.registerDevice('counted', other);
    await userSession(fx.gateway, other.accountId, 'viewer');
    const listed = await session.get('/accounts');
    expect(listed.status).to.equal(200);
    const row = listed.body.data.find((account: { id: string }) => account.id === other.accountId);
    expect(Object.keys(row)).to.have.members(ACCOUNT_MEMBERS);
    expect(row).to.include({ name: other.accountName, users: 1, devices: 1, disabled: false, disabled_at: null });
  });

  it('pages the accounts newest first: the cursor walks every account once', async () => {
    const session = await admin();
    const opened: string[] = [];
    for (let i = 0; i < 3; i++) opened.push((await session.post('/accounts', { name: uniqueName(), owner_email: uniqueEmail() })).body.account.id);
    const first = await session.get('/accounts?limit=2');
    expect(first.body.data.map((account: { id: string }) => account.id)).to.deep.equal([opened[2], opened[1]]);
    const second = await session.get(`/accounts?limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body.data[0].id).to.equal(opened[0]);
    expectError(await session.get('/accounts?cursor=not-ours'), 400, 'validation_failed');
  });

  it('opens an account with its first owner, whose one-time password is answered once and must be changed', async () => {
    const session = await admin();
    const name = uniqueName();
    const email = uniqueEmail();
    const opened = await session.post('/accounts', { name, owner_email: email });
    expect(opened.status, JSON.stringify(opened.body)).to.equal(201);
    expect(Object.keys(opened.body)).to.have.members(['account', 'owner', 'one_time_password']);
    expect(opened.body.account).to.include({ name, users: 1, devices: 0, disabled: false });
    expect(opened.body.owner).to.include({ email, role: 'owner', is_admin: false, must_change_password: true });
    const owner = await loginAs(fx.gateway, email, opened.body.one_time_password);
    expectError(await owner.get('/users'), 403, 'password_change_required');
    expect((await session.get('/accounts')).body.data.map((account: { name: string }) => account.name)).to.include(name);
  });

  it('a taken name is 409 conflict, a taken owner email 409 email_taken, bad input 400; nothing is left behind', async () => {
    const session = await admin();
    const before = await fx.gateway.services.accounts.count();
    expectError(await session.post('/accounts', { name: fx.tenant.accountName, owner_email: uniqueEmail() }), 409, 'conflict');
    expectError(await session.post('/accounts', { name: uniqueName(), owner_email: session.email }), 409, 'email_taken');
    expectError(await session.post('/accounts', { name: 'has spaces', owner_email: uniqueEmail() }), 400, 'validation_failed');
    expectError(await session.post('/accounts', { name: uniqueName(), owner_email: 'nobody' }), 400, 'validation_failed');
    expectError(await session.post('/accounts', { name: uniqueName() }), 400, 'validation_failed');
    expectError(await session.patch(`/accounts/${fx.tenant.accountId}`, {}), 400, 'validation_failed');
    expectError(await session.patch('/accounts/not-a-uuid', { name: 'x' }), 400, 'invalid_id');
    expectError(await session.patch(`/accounts/${UNKNOWN_ID}`, { name: uniqueName() }), 404, 'account_not_found');
    expect(await fx.gateway.services.accounts.count()).to.equal(before);
  });

  it('everyone but an administrator is refused: other users 403 admin_only, API keys 403 forbidden, an administrator with a one-time password 403 password_change_required', async () => {
    const owner = await userSession(fx.gateway, fx.tenant.accountId, 'owner');
    expectError(await owner.get('/accounts'), 403, 'admin_only');
    expectError(await owner.post('/accounts', { name: uniqueName(), owner_email: uniqueEmail() }), 403, 'admin_only');
    expectError(await owner.patch(`/accounts/${fx.tenant.accountId}`, { name: uniqueName() }), 403, 'admin_only');
    // Refused before the rest of the request is read: a bad cursor, id or body changes nothing.
    expectError(await owner.get('/accounts?cursor=not-a-cursor'), 403, 'admin_only');
    expectError(await owner.patch('/accounts/not-a-uuid', { name: 'has spaces' }), 403, 'admin_only');
    expectError(await owner.delete(`/accounts/${fx.tenant.accountId}`), 403, 'admin_only');
    const viewer = await userSession(fx.gateway, fx.tenant.accountId, 'viewer');
    expectError(await viewer.post('/accounts', { name: uniqueName(), owner_email: uniqueEmail() }), 403, 'admin_only');
    expectError(await fx.tenant.api.get('/accounts'), 403, 'forbidden');
    expectError(await fx.tenant.api.post('/accounts', { name: uniqueName(), owner_email: uniqueEmail() }), 403, 'forbidden');

    const email = uniqueEmail();
    const { oneTimePassword } = await fx.gateway.services.users.create({ accountId: fx.tenant.accountId, email, role: 'owner', isAdmin: true });
    const fresh = await loginAs(fx.gateway, email, oneTimePassword!);
    expectError(await fresh.get('/accounts'), 403, 'password_change_required');
    expect((await fx.gateway.services.accounts.summary(fx.tenant.accountId)).name).to.equal(fx.tenant.accountName);
  });

  it('a disabled account\'s keys and sessions are 403 account_disabled and its users cannot log in; enabled again, all works', async () => {
    const session = await admin();
    const other = await fx.newTenant();
    const user = await userSession(fx.gateway, other.accountId, 'owner');
    expect((await other.api.get('/sms')).status).to.equal(200);

    const disabled = await session.patch(`/accounts/${other.accountId}`, { disabled: true });
    expect(disabled.status).to.equal(200);
    expect(disabled.body).to.include({ id: other.accountId, disabled: true });
    expectError(await other.api.get('/sms'), 403, 'account_disabled');
    expectError(await other.api.post('/sms', { phone: '+79161234567', message: 'no' }), 403, 'account_disabled');
    expectError(await user.get('/sms'), 403, 'account_disabled');
    const refused = await tryLogin(fx.gateway, user.email, USER_PASSWORD);
    const wrong = await tryLogin(fx.gateway, user.email, 'not the password at all');
    expect(refused.status).to.equal(401);
    expect(refused.body).to.deep.equal(wrong.body);
    expect(await smsRowsOf(fx, other.accountId)).to.have.length(0);

    expect((await session.patch(`/accounts/${other.accountId}`, { disabled: false })).body.disabled).to.equal(false);
    expect((await other.api.get('/sms')).status).to.equal(200);
    expect((await user.get('/sms')).status).to.equal(200);
    await loginAs(fx.gateway, user.email);
  });

  it('renames an account; an administrator cannot disable their own account (409 cannot_change_self)', async () => {
    const session = await admin();
    const other = await fx.newTenant();
    const name = uniqueName();
    const renamed = await session.patch(`/accounts/${other.accountId}`, { name });
    expect(renamed.status).to.equal(200);
    expect(renamed.body.name).to.equal(name);
    expectError(await session.patch(`/accounts/${other.accountId}`, { name: fx.tenant.accountName }), 409, 'conflict');
    expectError(await session.patch(`/accounts/${fx.tenant.accountId}`, { disabled: true }), 409, 'cannot_change_self');
    expect((await session.get('/accounts')).status).to.equal(200);
  });
});
