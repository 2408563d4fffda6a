// The layering check CI runs (`npm run check:architecture`): each rule is caught on a small tree
// written for it, and the repository itself keeps every rule.
import { expect } from 'chai';
import { checkArchitecture, readSources, type SourceFile } from '../../scripts/check-architecture.ts';

function file(path: string, text: string, imports: string[] = []): SourceFile {
  return { path, text, imports };
}

describe('check-architecture', () => {
  it('when a module imports another module\'s repository, then that is a breach', () => {
    const breaches = checkArchitecture([file('src/modules/a/service.ts', '', ['src/modules/b/repository.ts'])]);
    expect(breaches).to.deep.equal(["src/modules/a/service.ts: imports src/modules/b/repository.ts, another module's repository"]);
  });

  it('when a module imports its own repository, then all is well', () => {
    expect(checkArchitecture([file('src/modules/a/service.ts', '', ['src/modules/a/repository.ts'])])).to.deep.equal([]);
  });

  it('when two modules import each other, then that is a breach', () => {
    const breaches = checkArchitecture([file('src/modules/a/service.ts', '', ['src/modules/b/types.ts']), file('src/modules/b/service.ts', '', ['src/modules/a/types.ts'])]);
    expect(breaches).to.deep.equal(['modules a and b import each other (src/modules/a/service.ts; src/modules/b/service.ts)']);
  });

  it('when the broker imports the database or the HTTP layer, or writes SQL, then each is a breach', () => {
    const breaches = checkArchitecture([
      file('broker/x.ts', '', ['src/storage/database.ts']),
      file('broker/y.ts', '', ['src/http/validation.ts']),
      file('broker/z.ts', "await db('devices').where('id', id).select('token_hash');"),
      file('broker/w.ts', 'const sql = `update devices set last_seen_at = now()`;'),
    ]);
    expect(breaches).to.have.length(4);
    expect(breaches.filter((breach) => breach.endsWith('the broker runs SQL'))).to.have.length(2);
  });

  it('when the broker reads bytes with Buffer.from, then that is not SQL', () => {
    expect(checkArchitecture([file('broker/proxy.ts', "const signature = Buffer.from('PROXY ');")])).to.deep.equal([]);
  });

  it('when Services is imported outside composition, then that is a breach; in src/cli/ it is not', () => {
    const breaches = checkArchitecture([file('src/cluster/cluster.ts', '', ['src/services.ts']), file('src/cli/context.ts', '', ['src/services.ts'])]);
    expect(breaches).to.deep.equal(['src/cluster/cluster.ts: imports Services outside composition']);
  });

  it('when a callback field is assigned or pushed to from outside, then that is a breach; on `this` it is not', () => {
    const breaches = checkArchitecture([
      file('src/wiring.ts', 'incoming.onStored = (row) => send(row);\ncalls.onDeleted.push(remove);\nthis.onReady = ready;\nif (a.onX == b) {}'),
    ]);
    expect(breaches).to.deep.equal([
      'src/wiring.ts: assigns the callback field incoming.onStored after construction',
      'src/wiring.ts: assigns the callback field calls.onDeleted after construction',
    ]);
  });

  it('when the repository\'s own sources are read, then every rule holds', () => {
    expect(checkArchitecture(readSources())).to.deep.equal([]);
  });
});
