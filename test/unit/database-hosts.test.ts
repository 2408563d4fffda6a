// DATABASE_URL naming several PostgreSQL servers, as libpq reads it: the hosts with and without
// ports, IPv6 in brackets, percent-encoded credentials and names, the other query options passed
// on to pg, target_session_attrs; bad lists refused at start naming DATABASE_URL, never echoing
// the password. One host stays pg's to read, as before.
import { expect } from 'chai';
import pg from 'pg';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { databaseLocation, hostConnectionString, hostLabel, parseDatabaseUrl, type DatabaseTarget } from '../../src/storage/database-hosts.ts';

/** What pg itself makes of one host's connection string (its own parser, as the pool uses it). */
function pgReads(connectionString: string): { host: string; port: number; user: string; password: string | null; database: string; ssl: unknown; application_name?: string } {
  // A client that is never connected: its settings as pg read them.
  return (new pg.Client({ connectionString }) as unknown as { connectionParameters: never }).connectionParameters;
}

function parsed(url: string): DatabaseTarget {
  const target = parseDatabaseUrl(url);
  expect(target, `${url} names several hosts`).to.not.equal(undefined);
  return target!;
}

function problemsOf(url: string): string[] {
  try {
    loadConfig({ DATABASE_URL: url });
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('DATABASE_URL with several hosts', () => {
  it('reads each host with its port, 5432 where none is written, in the order written', () => {
    const target = parsed('postgres://gw@db1:5433,db2,10.0.0.7:6000/sms');
    expect(target.hosts).to.deep.equal([
      { host: 'db1', port: 5433 },
      { host: 'db2', port: 5432 },
      { host: '10.0.0.7', port: 6000 },
    ]);
  });

  it('reads IPv6 addresses in brackets, with and without a port', () => {
    const target = parsed('postgresql://gw@[::1]:5433,[fd00::7]/sms');
    expect(target.hosts).to.deep.equal([
      { host: '::1', port: 5433 },
      { host: 'fd00::7', port: 5432 },
    ]);
    expect(target.hosts.map(hostLabel)).to.deep.equal(['[::1]:5433', '[fd00::7]:5432']);
    // pg is given the address without brackets, which it could not connect to.
    expect(pgReads(hostConnectionString(target, target.hosts[0]!)).host).to.equal('::1');
  });

  it('gives pg each host with the credentials, database and options as written, percent-encoding decoded', () => {
    const target = parsed('postgres://sms%40gw:p%40ss%2Fw%3Ard@db1:5433,db2:5434/sms%20prod?sslmode=disable&application_name=gateway%201');
    const second = pgReads(hostConnectionString(target, target.hosts[1]!));
    expect(second).to.include({ host: 'db2', port: 5434, user: 'sms@gw', password: 'p@ss/w:rd', database: 'sms prod', application_name: 'gateway 1' });
    expect(pgReads(hostConnectionString(target, target.hosts[0]!))).to.include({ host: 'db1', port: 5433 });
  });

  it('reads target_session_attrs read-write (the default), primary and any, and keeps it from pg', () => {
    expect(parsed('postgres://db1,db2/sms').targetSessionAttrs).to.equal('read-write');
    expect(parsed('postgres://db1,db2/sms?target_session_attrs=primary').targetSessionAttrs).to.equal('primary');
    expect(parsed('postgres://db1,db2/sms?target_session_attrs=any&sslmode=disable').targetSessionAttrs).to.equal('any');
    const target = parsed('postgres://db1,db2/sms?target_session_attrs=read-write&application_name=gw');
    expect(hostConnectionString(target, target.hosts[0]!)).to.not.include('target_session_attrs');
    expect(pgReads(hostConnectionString(target, target.hosts[0]!)).application_name).to.equal('gw');
  });

  it('leaves one host to pg as before (a proxy or a cloud endpoint), and the configuration keeps the URL as written', () => {
    expect(parseDatabaseUrl('postgres://gw:secret@db.internal:5432/sms')).to.equal(undefined);
    const url = 'postgres://gw@db1:5432,db2:5433/sms?target_session_attrs=read-write';
    expect(loadConfig({ DATABASE_URL: url }).databaseUrl).to.equal(url);
  });

  it('describes where the database is without the credentials', () => {
    expect(databaseLocation('postgres://gw:secret@db1:5433,[::1]/sms')).to.equal('db1:5433,[::1]:5432/sms');
    expect(databaseLocation('postgres://gw:secret@db.internal/sms')).to.equal('db.internal:5432/sms');
  });

  for (const [url, reason] of [
    ['postgres://gw:secret@db1:5432,,db2/sms', /host 2 of the list is empty/],
    ['postgres://gw:secret@db1:5432,db2:70000/sms', /host 2 of the list: the port must be a number from 1 to 65535/],
    ['postgres://gw:secret@db1:port,db2/sms', /host 1 of the list: the port must be/],
    ['postgres://gw:secret@db1,[::1/sms', /not closed with \]/],
    ['postgres://gw:secret@db1,[db2]:5432/sms', /not an IPv6 address/],
    ['postgres://gw:secret@db1,::1/sms', /an IPv6 address goes in brackets/],
    ['postgres://gw:secret@db1,db2/sms?target_session_attrs=standby', /target_session_attrs=standby is not one the gateway can use/],
    ['postgres://gw:secret@db1,db2/sms?host=db3', /names its hosts twice/],
    ['mysql://gw:secret@db1,db2/sms', /must start with postgres:\/\/ or postgresql:\/\//],
    ['postgres://gw:sec%zzret@db1,db2/sms', /bad percent-encoding/],
  ] as const) {
    it(`refuses ${url.replace('secret', '***')} at start, naming DATABASE_URL and never the password`, () => {
      const problems = problemsOf(url);
      expect(problems).to.have.length(1);
      expect(problems[0]).to.match(/^DATABASE_URL: /).and.match(reason);
      expect(problems[0]).to.not.include('secret');
    });
  }
});
