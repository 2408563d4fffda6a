// The layering check CI runs (`npm run check:architecture`): each rule is caught on a small tree
// written for it, and the repository itself keeps every rule.
import { expect } from 'chai';
import { checkArchitecture, readMigrations, readSources, type Ownership, type SourceFile } from '../../scripts/check-architecture.ts';

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

  it('when a feature file imports a route file at the top, then that is a breach; inside waysIn (import()) it is not', () => {
    const route = 'src/api/extended/a/routes.ts';
    const breaches = checkArchitecture([
      file('src/modules/a/feature.ts', '', [route]),
      { path: 'src/modules/b/feature.ts', text: '', imports: ['src/api/extended/b/routes.ts'], eagerImports: [] },
    ]);
    expect(breaches).to.deep.equal([`src/modules/a/feature.ts: imports ${route} at the top; a feature imports its routes inside waysIn`]);
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

  it('when a module registers a listener on the seam or on other nodes\' news, then that is a breach; in its feature file it is not', () => {
    const breaches = checkArchitecture([
      file('src/modules/a/service.ts', "events.on('sms.queued', go);\ninvalidation?.on('api_key', drop);\n// events.on('in a comment')"),
      file('src/modules/a/feature.ts', "events.on('sms.queued', go);\nevents.listenAll(listeners);"),
    ]);
    expect(breaches).to.deep.equal([
      "src/modules/a/service.ts: registers a listener with events.on, which only feature files do",
      "src/modules/a/service.ts: registers a listener with invalidation?.on, which only feature files do",
    ]);
  });

  it('when the cluster registers a listener on other nodes\' news, then that is a breach: the news enters the seam through the core feature only', () => {
    const breaches = checkArchitecture([file('src/cluster/invalidation.ts', "invalidation.on('api_key', drop);")]);
    expect(breaches).to.deep.equal(['src/cluster/invalidation.ts: registers a listener with invalidation.on, which only feature files do']);
  });

  describe('tables', () => {
    const ownership: Ownership = {
      owners: { devices: 'src/modules/devices/', sms: 'src/modules/messages/' },
      shared: [{ table: 'devices', by: 'src/modules/messages/repository.ts', why: 'shown with each SMS' }],
      upward: [],
    };

    it("when a module's SQL names another module's table, by the query builder or in SQL text, then each is a breach", () => {
      const breaches = checkArchitecture(
        [
          file('src/modules/stats/repository.ts', "await db<Row>('devices').where({ account_id }).select('id');"),
          file('src/modules/delivery/breaker.ts', 'await trx.raw(`update devices set paused_until = ? where id = ?`, [until, id]);'),
          file('src/common/gauges.ts', "db('sms as s').leftJoin('devices as d', 'd.id', 's.device_id');"),
          file('src/modules/delivery/history.ts', 'await db.raw(`insert into sms (id, status) select id, ? from unnest(?::uuid[]) as id`, [status, ids]);'),
        ],
        { ownership },
      );
      expect(breaches).to.deep.equal([
        'src/modules/stats/repository.ts: SQL over devices, a table of src/modules/devices/',
        'src/modules/delivery/breaker.ts: SQL over devices, a table of src/modules/devices/',
        'src/common/gauges.ts: SQL over sms, a table of src/modules/messages/',
        'src/common/gauges.ts: SQL over devices, a table of src/modules/devices/',
        'src/modules/delivery/history.ts: SQL over sms, a table of src/modules/messages/',
      ]);
    });

    it('when the owner, or a file listed as sharing the table, names it, then all is well; prose and comments are not SQL', () => {
      const breaches = checkArchitecture(
        [
          file('src/modules/devices/shared-queries.ts', "await db('devices').where({ id }).forShare();"),
          file('src/modules/messages/repository.ts', "db('sms').leftJoin('devices', 'devices.id', 'sms.device_id');"),
          file('src/modules/stats/service.ts', "// counted from devices\nlogger.info('read from SMS devices', { devices });"),
        ],
        { ownership },
      );
      expect(breaches).to.deep.equal([]);
    });

    it('when the whole tree no longer needs a listed exception, or a migration makes a table nobody owns, then each is a breach', () => {
      const breaches = checkArchitecture([file('src/modules/messages/repository.ts', "db('sms');")], {
        ownership,
        whole: true,
        migrations: [file('db/migrations/099_x.ts', "await knex.schema.createTable('devices', () => {});\nawait knex.raw(`create table sim_notes (id int)`);")],
      });
      expect(breaches).to.deep.equal([
        'db/migrations/099_x.ts: makes the table sim_notes, which has no owner in scripts/architecture/table-owners.ts',
        'table-owners: src/modules/messages/repository.ts no longer names devices; take the exception off the list',
      ]);
    });
  });

  describe('layers', () => {
    it('when a lower layer imports a higher one, then that is a breach; downward imports are not', () => {
      const breaches = checkArchitecture([
        file('src/common/gauges.ts', '', ['src/storage/database.ts', 'src/common/metrics.ts']),
        file('src/storage/paging.ts', '', ['src/common/errors.ts']),
        file('src/modules/a/service.ts', '', ['src/use-cases/create-x.ts', 'src/events/domain-events.ts']),
        file('src/api/extended/a/routes.ts', '', ['src/use-cases/create-x.ts', 'src/http/route.ts']),
        file('src/http/route.ts', '', ['src/services.ts']),
      ]);
      expect(breaches).to.have.members([
        'src/common/gauges.ts: imports src/storage/database.ts, from common up to storage',
        'src/modules/a/service.ts: imports src/use-cases/create-x.ts, from modules up to use-cases',
        'src/http/route.ts: imports Services outside composition',
      ]);
      expect(breaches).to.have.length(3);
    });
  });

  it('when the repository\'s own sources and migrations are read, then every rule holds', () => {
    expect(checkArchitecture(readSources(), { migrations: readMigrations(), whole: true })).to.deep.equal([]);
  });
});
