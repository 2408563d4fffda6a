// Password hashing: with scrypt, and the password is never logged. The stored string carries
// its own salt and cost, so two hashes of one password differ and still both verify.
import { expect } from 'chai';
import { generatePassword, hashPassword, verifyPassword } from '../../src/modules/users/passwords.ts';

describe('passwords (scrypt)', function () {
  this.timeout(20_000);

  it('verifies the right password and refuses a wrong one', async () => {
    const stored = await hashPassword('correct horse battery staple');
    expect(await verifyPassword('correct horse battery staple', stored)).to.equal(true);
    expect(await verifyPassword('correct horse battery stapl', stored)).to.equal(false);
    expect(await verifyPassword('', stored)).to.equal(false);
  });

  it('stores the scheme, its cost and a random salt, never the password', async () => {
    const one = await hashPassword('the same password');
    const two = await hashPassword('the same password');
    expect(one).to.match(/^scrypt\$\d+\$\d+\$\d+\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]{43}$/);
    expect(one).to.not.equal(two);
    expect(one).to.not.contain('the same password');
    expect(await verifyPassword('the same password', two)).to.equal(true);
  });

  it('hashes at production cost (N=2^15, r=8, p=3) by default, at the configured cost when given; a hash of either cost verifies', async () => {
    const production = await hashPassword('cost check');
    expect(production.split('$').slice(1, 4)).to.deep.equal(['32768', '8', '3']);
    const cheap = await hashPassword('cost check', 10);
    expect(cheap.split('$').slice(1, 4)).to.deep.equal(['1024', '8', '3']);
    expect(await verifyPassword('cost check', production)).to.equal(true);
    expect(await verifyPassword('cost check', cheap)).to.equal(true);
  });

  it('matches nothing against a malformed or tampered hash', async () => {
    const stored = await hashPassword('a password here');
    expect(await verifyPassword('a password here', 'not a hash')).to.equal(false);
    expect(await verifyPassword('a password here', stored.replace(/^scrypt/, 'bcrypt'))).to.equal(false);
    // An absurd cost is refused rather than computed (it would take the process's memory).
    expect(await verifyPassword('a password here', stored.replace(/^scrypt\$\d+/, 'scrypt$1073741824'))).to.equal(false);
    const parts = stored.split('$');
    parts[5] = parts[5]!.slice(0, -2) + (parts[5]!.endsWith('AA') ? 'BA' : 'AA');
    expect(await verifyPassword('a password here', parts.join('$'))).to.equal(false);
  });

  it('generates one-time passwords that are long and different each time', () => {
    const passwords = new Set(Array.from({ length: 50 }, () => generatePassword()));
    expect(passwords.size).to.equal(50);
    for (const password of passwords) expect(password).to.match(/^[A-Za-z0-9_-]{24}$/);
  });
});
