// Start-up rules for several nodes: `REDIS_URL` with the embedded database is refused at start
// with a clear message (several nodes cannot share PGlite); NODE_ID names the node in logs and
// metrics.
import { expect } from 'chai';
import { hostname } from 'node:os';
import { loadConfig } from '../../src/config.ts';
import { configProblems } from '../support/config-problems.ts';
import { expectRefused, killChildren, runCli, tempDataDir } from '../support/cli.ts';

const EMBEDDED_REFUSAL = 'REDIS_URL: several nodes cannot share the embedded database; set DATABASE_URL to PostgreSQL or unset REDIS_URL';
/** Every node of a deployment holds the same key (WEBHOOK_SECRET_KEY). */
const KEY = 'ab'.repeat(32);

describe('cluster configuration', () => {
  describe('REDIS_URL', () => {
    it('when it is set without DATABASE_URL (the embedded database), then the configuration is refused saying why and what to do', () => {
      expect(configProblems({ REDIS_URL: 'redis://127.0.0.1:6379', WEBHOOK_SECRET_KEY: KEY })).to.deep.equal([EMBEDDED_REFUSAL]);
    });

    it('when it is set without WEBHOOK_SECRET_KEY, then the configuration is refused: each node would make a key of its own and could not sign the others\' webhooks', () => {
      const problems = configProblems({ REDIS_URL: 'redis://127.0.0.1:6379', DATABASE_URL: 'postgres://gw@db/sms' });
      expect(problems).to.have.length(1);
      expect(problems[0]).to.match(/^REDIS_URL: several nodes must share the key that encrypts webhook secrets; set WEBHOOK_SECRET_KEY/);
    });

    it('when it is set with DATABASE_URL, then it is accepted with the default channel prefix', () => {
      const config = loadConfig({ REDIS_URL: 'redis://:pw@redis.internal:6379/2', DATABASE_URL: 'postgres://gw@db/sms', WEBHOOK_SECRET_KEY: KEY });
      expect(config).to.include({ redisUrl: 'redis://:pw@redis.internal:6379/2', redisPrefix: 'sms-gateway', presenceLeaseMs: 15_000 });
    });

    it('when DATABASE_URL is itself invalid, then only that is reported, not the embedded database', () => {
      expect(configProblems({ REDIS_URL: 'redis://127.0.0.1:6379', DATABASE_URL: 'mysql://db/sms', WEBHOOK_SECRET_KEY: KEY })).to.deep.equal(['DATABASE_URL: must start with postgres:// or postgresql://']);
    });

    it('when REDIS_PREFIX holds a space, then it is refused', () => {
      expect(configProblems({ REDIS_PREFIX: 'my gateway' })[0]).to.match(/^REDIS_PREFIX: must be 1-64 letters/);
    });
  });

  describe('PRESENCE_LEASE', () => {
    it('when set to 3, then a node renews its lease every second', () => {
      expect(loadConfig({ PRESENCE_LEASE: '3' }).presenceLeaseMs).to.equal(3_000);
    });

    for (const bad of ['2', '301', '1.5', 'soon']) {
      it(`when set to ${JSON.stringify(bad)}, then it is refused naming the variable and the range`, () => {
        expect(configProblems({ PRESENCE_LEASE: bad })[0]).to.match(/^PRESENCE_LEASE: must be a whole number of seconds between 3 and 300/);
      });
    }
  });

  describe('NODE_ID', () => {
    it('when unset, then it is the host name and the process id', () => {
      const { nodeId } = loadConfig({});
      expect(nodeId).to.match(/^[A-Za-z0-9._-]{1,64}$/);
      expect(nodeId.endsWith(`-${process.pid}`), nodeId).to.equal(true);
      expect(nodeId).to.contain(hostname().replace(/[^A-Za-z0-9._-]/g, '-').slice(0, 50));
    });

    it('when set to a valid name, then it is used as it is', () => {
      expect(loadConfig({ NODE_ID: 'gw-2.eu_west' }).nodeId).to.equal('gw-2.eu_west');
    });

    for (const bad of ['node 1', 'a'.repeat(65), 'node/1', 'nöde']) {
      it(`when set to ${JSON.stringify(bad.length > 20 ? `${bad.slice(0, 8)}... (${bad.length} characters)` : bad)}, then it is refused naming the variable`, () => {
        const [problem] = configProblems({ NODE_ID: bad });
        expect(problem).to.match(/^NODE_ID: must be 1-64 letters, digits, dots, underscores or dashes/);
      });
    }
  });

  describe('sms-gateway serve with REDIS_URL and no DATABASE_URL', function () {
    this.timeout(30_000);
    const dataDir = tempDataDir('cluster-config');
    after(() => {
      killChildren();
      dataDir.remove();
    });

    it('then it exits 1 before listening, with the message and no stack trace', async () => {
      const result = await runCli(['serve'], { DATA_DIR: dataDir.dir, PORT: '0', MQTT_PORT: '0', HOST: '127.0.0.1', REDIS_URL: 'redis://127.0.0.1:6379', WEBHOOK_SECRET_KEY: KEY });
      expectRefused(result, 1);
      expect(result.stderr).to.contain(EMBEDDED_REFUSAL);
    });
  });
});
