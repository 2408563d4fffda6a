// The shared Redis as a Sentinel group: REDIS_SENTINELS (host:port list), REDIS_SENTINEL_NAME
// (required with it), REDIS_SENTINEL_PASSWORD and REDIS_PASSWORD, checked at start with messages
// naming the variable and never a password; and the options every connection of a node is made
// with (it follows a failover: asks the sentinels again, reconnects on READONLY).
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { Writable } from 'node:stream';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/common/logger.ts';
import { RedisLink } from '../../src/cluster/redis.ts';
import { freePort } from '../support/ports.ts';
import { parseSentinels, redisConnectionOptions, redisTarget } from '../../src/cluster/redis-options.ts';
import { configProblems } from '../support/config-problems.ts';

/** What a node of several needs besides its Redis. */
const CLUSTER = { DATABASE_URL: 'postgres://gw@db/sms', WEBHOOK_SECRET_KEY: 'ab'.repeat(32) };
const SENTINELS = { ...CLUSTER, REDIS_SENTINELS: '10.0.0.1:26379, 10.0.0.2:26380,sentinel-3', REDIS_SENTINEL_NAME: 'mymaster' };

describe('Redis Sentinel settings', () => {
  it('when REDIS_SENTINELS and REDIS_SENTINEL_NAME are set, then the node follows that group, the sentinels listed in order (26379 when no port is given)', () => {
    const config = loadConfig({ ...SENTINELS, REDIS_SENTINEL_PASSWORD: 'sentinel secret', REDIS_PASSWORD: 'master secret' });
    expect(config.redisUrl).to.equal(undefined);
    expect(config.redisSentinel).to.deep.equal({
      sentinels: [
        { host: '10.0.0.1', port: 26379 },
        { host: '10.0.0.2', port: 26380 },
        { host: 'sentinel-3', port: 26379 },
      ],
      name: 'mymaster',
      sentinelPassword: 'sentinel secret',
      password: 'master secret',
    });
    expect(redisTarget(config)).to.deep.equal({ sentinel: config.redisSentinel });
  });

  it('when nothing of Redis is set, then there is no target: a single node', () => {
    const config = loadConfig({});
    expect(config.redisSentinel).to.equal(undefined);
    expect(redisTarget(config)).to.equal(undefined);
  });

  it('when REDIS_SENTINEL_NAME is missing, then the start is refused naming it', () => {
    expect(configProblems({ ...CLUSTER, REDIS_SENTINELS: '10.0.0.1:26379' })).to.deep.equal([
      'REDIS_SENTINEL_NAME: required with REDIS_SENTINELS: the name of the master group the sentinels monitor (`sentinel monitor <name> ...`), such as mymaster',
    ]);
  });

  it('when REDIS_URL is set too, then the start is refused: a node must not follow another Redis than the rest', () => {
    expect(configProblems({ ...SENTINELS, REDIS_URL: 'redis://127.0.0.1:6379' })).to.deep.equal([
      'REDIS_SENTINELS: set either REDIS_URL (one Redis server) or REDIS_SENTINELS (a Sentinel group), not both',
    ]);
  });

  it('when the sentinels are without DATABASE_URL or WEBHOOK_SECRET_KEY, then the start is refused as with REDIS_URL, naming REDIS_SENTINELS', () => {
    const sentinelsOnly = { REDIS_SENTINELS: '10.0.0.1:26379', REDIS_SENTINEL_NAME: 'mymaster' };
    expect(configProblems({ ...sentinelsOnly, WEBHOOK_SECRET_KEY: 'ab'.repeat(32) })).to.deep.equal([
      'REDIS_SENTINELS: several nodes cannot share the embedded database; set DATABASE_URL to PostgreSQL or unset REDIS_SENTINELS',
    ]);
    const withoutKey = configProblems({ ...sentinelsOnly, DATABASE_URL: 'postgres://gw@db/sms' });
    expect(withoutKey).to.have.length(1);
    expect(withoutKey[0]).to.match(/^REDIS_SENTINELS: several nodes must share the key that encrypts webhook secrets; set WEBHOOK_SECRET_KEY/);
  });

  it('when the name, the sentinel password or the master password is given without REDIS_SENTINELS, then each is refused (with REDIS_URL the password belongs in the URL)', () => {
    const problems = configProblems({ ...CLUSTER, REDIS_URL: 'redis://127.0.0.1:6379', REDIS_SENTINEL_NAME: 'mymaster', REDIS_SENTINEL_PASSWORD: 'hunter2', REDIS_PASSWORD: 'hunter3' });
    expect(problems.map((problem) => problem.split(':')[0])).to.deep.equal(['REDIS_SENTINEL_NAME', 'REDIS_SENTINEL_PASSWORD', 'REDIS_PASSWORD']);
    expect(problems.join('\n'), 'no password echoed').not.to.match(/hunter/);
  });

  it('when the group name holds a character Sentinel refuses, then the start is refused naming REDIS_SENTINEL_NAME', () => {
    expect(configProblems({ ...SENTINELS, REDIS_SENTINEL_NAME: 'my master' })).to.deep.equal(['REDIS_SENTINEL_NAME: must be 1-128 letters, digits, ".", "-" or "_" (as Sentinel accepts), got "my master"']);
  });

  it('when a password spans two lines, then it is refused without being echoed', () => {
    const problems = configProblems({ ...SENTINELS, REDIS_PASSWORD: 'top\nsecret' });
    expect(problems).to.deep.equal(['REDIS_PASSWORD: must be one line']);
  });

  describe('REDIS_SENTINELS entries', () => {
    for (const [raw, why] of [
      [',', 'empty list'],
      ['10.0.0.1:0', 'port 0'],
      ['10.0.0.1:70000', 'port past 65535'],
      ['10.0.0.1:abc', 'port not a number'],
      ['redis://10.0.0.1:26379', 'a URL'],
      ['10.0.0.1:26379,10.0.0.1:26379', 'listed twice'],
      ['::1:26379', 'IPv6 without brackets'],
    ] as const) {
      it(`when it is "${raw}" (${why}), then the start is refused naming REDIS_SENTINELS`, () => {
        const problems = configProblems({ ...SENTINELS, REDIS_SENTINELS: raw });
        expect(problems).to.have.length(1);
        expect(problems[0]).to.match(/^REDIS_SENTINELS: /);
      });
    }

    it('when an IPv6 address is in brackets, then it is read without them', () => {
      expect(parseSentinels('[::1]:26380,[fd00::2]')).to.deep.equal([
        { host: '::1', port: 26380 },
        { host: 'fd00::2', port: 26379 },
      ]);
    });
  });

  describe('connection options', () => {
    const sentinel = { sentinels: [{ host: '10.0.0.1', port: 26379 }], name: 'mymaster', sentinelPassword: 's', password: 'm' };

    it('when the target is a Sentinel group, then every connection asks the sentinels for the master, with both passwords, and never ends itself at a switch of master', () => {
      for (const role of ['commands', 'subscriber'] as const) {
        const options = redisConnectionOptions({ sentinel }, role);
        expect(options, role).to.include({ name: 'mymaster', role: 'master', sentinelPassword: 's', password: 'm', failoverDetector: false });
        expect(options.sentinels, role).to.deep.equal([{ host: '10.0.0.1', port: 26379 }]);
      }
    });

    it('when a server answers READONLY (a demoted master), then the connection reconnects and sends the command again; other errors do not reconnect', () => {
      for (const target of [{ sentinel }, { url: 'redis://127.0.0.1:6379' }]) {
        const { reconnectOnError } = redisConnectionOptions(target, 'commands');
        expect(reconnectOnError!(new Error("READONLY You can't write against a read only replica."))).to.equal(2);
        expect(reconnectOnError!(new Error('ERR unknown command'))).to.equal(false);
      }
    });

    it('when Redis is gone, then commands fail at once while the subscriber queues its SUBSCRIBEs; with Sentinel the retries stop growing at 1 s, by URL at 5 s', () => {
      expect(redisConnectionOptions({ sentinel }, 'commands')).to.include({ enableOfflineQueue: false, maxRetriesPerRequest: 0 });
      expect(redisConnectionOptions({ sentinel }, 'subscriber')).to.include({ enableOfflineQueue: true, maxRetriesPerRequest: null });
      expect(redisConnectionOptions({ sentinel }, 'commands').retryStrategy!(20)).to.equal(1_000);
      expect(redisConnectionOptions({ url: 'redis://127.0.0.1:6379' }, 'commands').retryStrategy!(20)).to.equal(5_000);
      expect(redisConnectionOptions({ url: 'redis://127.0.0.1:6379' }, 'commands').retryStrategy!(1)).to.equal(250);
    });
  });

  describe('a refused login', () => {
    it('when Redis refuses the password, then "Redis unavailable" is logged with the reason and never the password', async function () {
      this.timeout(15_000);
      const port = await freePort();
      const server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--requirepass', 'the-right-one'], { stdio: ['ignore', 'pipe', 'ignore'] });
      const lines: string[] = [];
      const sink = new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(chunk.toString());
          done();
        },
      });
      let link: RedisLink | undefined;
      try {
        await new Promise<void>((resolve) => server.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('Ready to accept connections') && resolve()));
        link = new RedisLink({ url: `redis://:WRONG-SECRET-42@127.0.0.1:${port}` }, createLogger('info', sink));
        await link.started();
        const logged = lines.join('');
        expect(logged).to.include('Redis unavailable');
        expect(logged).to.match(/WRONGPASS|invalid/i);
        expect(logged, 'the password').not.to.include('WRONG-SECRET-42');
      } finally {
        await link?.close();
        server.kill('SIGKILL');
        await once(server, 'exit');
      }
    });
  });
});
