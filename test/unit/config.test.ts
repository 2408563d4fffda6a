// Configuration from the environment, read in one module (README, "Configuration"): PORT (HTTP,
// default 3000), MQTT_PORT (default 1883), DATABASE_URL, DATA_DIR, LOG_LEVEL and the rest. A
// bad value is refused at start with a message naming the variable.
import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../src/config.ts';

/** The ConfigError loadConfig throws for `env`; fails the test when it throws none. */
function refusal(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return error as ConfigError;
  }
  expect.fail(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('loadConfig', () => {
  describe('when the environment sets nothing', () => {
    it('then the defaults are PORT 3000, MQTT_PORT 1883, LOG_LEVEL info, DATA_DIR ./data, no DATABASE_URL', () => {
      const config = loadConfig({});
      expect(config.port).to.equal(3000);
      expect(config.mqttPort).to.equal(1883);
      expect(config.logLevel).to.equal('info');
      expect(config.dataDir).to.equal('./data');
      expect(config.databaseUrl).to.equal(undefined);
      expect(config.redisUrl).to.equal(undefined);
      expect(config.bodyLimitBytes).to.equal(64 * 1024);
      expect(config.deviceOfflineAfterMs, 'a silent device is offline after about 5 minutes').to.equal(5 * 60_000);
      expect(config.legacyCountCap, 'a legacy search counts up to 2,000 matches').to.equal(2000);
    });

    it('then empty values count as unset', () => {
      const config = loadConfig({ PORT: '', MQTT_PORT: ' ', LOG_LEVEL: '', DATABASE_URL: '' });
      expect(config).to.include({ port: 3000, mqttPort: 1883, logLevel: 'info', databaseUrl: undefined });
    });
  });

  describe('when values are valid', () => {
    it('then they are read and typed', () => {
      const config = loadConfig({
        PORT: '8080',
        MQTT_PORT: '8883',
        LOG_LEVEL: 'debug',
        DATABASE_URL: 'postgres://gw:secret@db.internal:5432/sms',
        DATA_DIR: '/var/lib/sms-gateway',
        DEVICE_OFFLINE_AFTER: '600',
        BODY_LIMIT: '1mb',
        DEFAULT_PHONE_REGION: 'ru',
      });
      expect(config).to.include({
        port: 8080,
        mqttPort: 8883,
        logLevel: 'debug',
        databaseUrl: 'postgres://gw:secret@db.internal:5432/sms',
        dataDir: '/var/lib/sms-gateway',
        deviceOfflineAfterMs: 600_000,
        bodyLimitBytes: 1024 * 1024,
        defaultPhoneRegion: 'RU',
      });
    });

    it('then both postgres:// and postgresql:// are accepted', () => {
      expect(loadConfig({ DATABASE_URL: 'postgresql://localhost/sms' }).databaseUrl).to.equal('postgresql://localhost/sms');
      expect(loadConfig({ DATABASE_URL: 'postgres://localhost/sms' }).databaseUrl).to.equal('postgres://localhost/sms');
    });

    it('then port 0 (any free port) and 65535 are accepted', () => {
      expect(loadConfig({ PORT: '0', MQTT_PORT: '65535' })).to.include({ port: 0, mqttPort: 65535 });
    });

    it('then LEGACY_COUNT_CAP takes a whole number from 1 to 1,000,000,000 or off, 2,000 by default', () => {
      expect(loadConfig({}).legacyCountCap).to.equal(2_000);
      for (const cap of [1, 50, 1_000_000_000]) expect(loadConfig({ LEGACY_COUNT_CAP: String(cap) }).legacyCountCap).to.equal(cap);
      for (const off of ['off', 'OFF']) expect(loadConfig({ LEGACY_COUNT_CAP: off }).legacyCountCap).to.equal('off');
    });

    it('then USSD_TIMEOUT takes whole seconds from 5 to 300, 30 by default', () => {
      expect(loadConfig({}).ussdTimeoutMs).to.equal(30_000);
      for (const seconds of [5, 45, 300]) expect(loadConfig({ USSD_TIMEOUT: String(seconds) }).ussdTimeoutMs).to.equal(seconds * 1000);
    });

    it('then WEBHOOK_RETRY_FOR takes whole seconds up to a week, a day by default', () => {
      expect(loadConfig({}).webhooks.retryForMs).to.equal(86_400_000);
      for (const seconds of [1, 259_200, 604_800]) expect(loadConfig({ WEBHOOK_RETRY_FOR: String(seconds) }).webhooks.retryForMs).to.equal(seconds * 1000);
    });

    it('then every log level pino knows is accepted', () => {
      for (const level of ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']) {
        expect(loadConfig({ LOG_LEVEL: level }).logLevel).to.equal(level);
      }
    });
  });

  describe('when a value is bad', () => {
    const cases: [string, string][] = [
      ['PORT', 'abc'],
      ['PORT', '-1'],
      ['PORT', '65536'],
      ['PORT', '80.5'],
      ['PORT', '3000abc'],
      ['MQTT_PORT', 'mqtt'],
      ['MQTT_PORT', '70000'],
      ['LOG_LEVEL', 'verbose'],
      ['LOG_LEVEL', 'INFO!'],
      ['DATABASE_URL', 'mysql://user@localhost/sms'],
      ['DATABASE_URL', 'http://localhost:5432/sms'],
      ['DATABASE_URL', 'localhost:5432'],
      ['DATABASE_URL', 'not a url'],
      ['DEVICE_OFFLINE_AFTER', '0'],
      ['DEVICE_OFFLINE_AFTER', '-5'],
      ['DEVICE_OFFLINE_AFTER', '5m'],
      ['DEVICE_OFFLINE_AFTER', 'soon'],
      ['SHUTDOWN_DRAIN', '121'],
      ['SHUTDOWN_DRAIN', '2.5'],
      ['TRUSTED_PROXIES', '10.0.0.0/33'],
      ['TRUSTED_PROXIES', 'balancer.internal'],
      ['BODY_LIMIT', 'huge'],
      ['BODY_LIMIT', '10'],
      ['BODY_LIMIT', '1gb'],
      ['BODY_LIMIT', '-64kb'],
      ['DEFAULT_PHONE_REGION', 'RUS'],
      ['DEFAULT_PHONE_REGION', '7'],
      ['DEFAULT_PHONE_REGION', 'R'],
      ['LEGACY_COUNT_CAP', '0'],
      ['LEGACY_COUNT_CAP', '-5'],
      ['LEGACY_COUNT_CAP', '1e3'],
      ['LEGACY_COUNT_CAP', '1000000001'],
      ['LEGACY_COUNT_CAP', 'all'],
      ['USSD_TIMEOUT', '4'],
      ['USSD_TIMEOUT', '301'],
      ['USSD_TIMEOUT', '30s'],
      ['USSD_TIMEOUT', '7.5'],
      ['WEBHOOK_RETRY_FOR', '0'],
      ['WEBHOOK_RETRY_FOR', '604801'],
    ];
    for (const [name, value] of cases) {
      it(`then ${name}=${JSON.stringify(value)} is refused with a ConfigError naming ${name}`, () => {
        const error = refusal({ [name]: value });
        expect(error.problems).to.have.length(1);
        expect(error.problems[0]!.startsWith(`${name}:`), error.problems[0]).to.equal(true);
        expect(error.message).to.contain(name);
      });
    }

    it('then every bad variable is named at once', () => {
      const error = refusal({ PORT: 'x', MQTT_PORT: 'y', LOG_LEVEL: 'z', BODY_LIMIT: 'w' });
      for (const name of ['PORT', 'MQTT_PORT', 'LOG_LEVEL', 'BODY_LIMIT']) {
        expect(error.problems.some((problem) => problem.startsWith(`${name}:`)), name).to.equal(true);
      }
    });
  });

  describe('when DATABASE_URL holds a password and is refused', () => {
    for (const url of ['mysql://gateway:Hunter2-Secret@db.internal/sms', 'postgres://gateway:Hunter2-Secret@[db.internal/sms']) {
      it(`then the error names DATABASE_URL but does not echo ${url.split(':')[0]}'s password or the URL`, () => {
        const error = refusal({ DATABASE_URL: url });
        expect(error.message).to.contain('DATABASE_URL');
        expect(error.message).to.not.contain('Hunter2-Secret');
        expect(error.message).to.not.contain('db.internal');
        expect(error.problems.join('\n')).to.not.contain('Hunter2-Secret');
      });
    }
  });
});
