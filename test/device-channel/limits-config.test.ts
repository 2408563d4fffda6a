// The variables of the MQTT limits and the authentication throttle (README, "Configuration"):
// their defaults, and a clear ConfigError naming the variable for a bad value.
import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { configProblems } from '../support/config-problems.ts';

describe('configuration of the MQTT limits and the authentication throttle', () => {
  it('has defaults sized for a phone farm behind one address and a 64 KiB device message', () => {
    const config = loadConfig({});
    expect(config.mqtt).to.deep.equal({ maxPacketBytes: 72 * 1024, connectTimeoutMs: 10_000, maxConnectionsPerAddress: 100, maxConnections: undefined });
    expect(config.authThrottle.failureLimit).to.equal(30);
    expect(config.authThrottle.windowMs).to.equal(60_000);
  });

  it('reads valid values', () => {
    const config = loadConfig({
      MQTT_MAX_PACKET: '256kb',
      MQTT_CONNECT_TIMEOUT: '5',
      MQTT_MAX_CONNECTIONS_PER_ADDRESS: '500',
      MQTT_MAX_CONNECTIONS: '20000',
      AUTH_FAILURE_LIMIT: '10',
      AUTH_FAILURE_WINDOW: '300',
    });
    expect(config.mqtt).to.deep.equal({ maxPacketBytes: 256 * 1024, connectTimeoutMs: 5_000, maxConnectionsPerAddress: 500, maxConnections: 20_000 });
    expect(config.authThrottle).to.include({ failureLimit: 10, windowMs: 300_000 });
    expect(loadConfig({ MQTT_MAX_CONNECTIONS: 'auto' }).mqtt.maxConnections, 'auto: the default').to.equal(undefined);
  });

  const bad: [string, string][] = [
    ['MQTT_MAX_PACKET', '65kb'],
    ['MQTT_MAX_PACKET', '1gb'],
    ['MQTT_MAX_PACKET', 'big'],
    ['MQTT_CONNECT_TIMEOUT', '0'],
    ['MQTT_CONNECT_TIMEOUT', '1h'],
    ['MQTT_MAX_CONNECTIONS_PER_ADDRESS', '0'],
    ['MQTT_MAX_CONNECTIONS_PER_ADDRESS', 'many'],
    ['MQTT_MAX_CONNECTIONS', '15'],
    ['MQTT_MAX_CONNECTIONS', 'many'],
    ['AUTH_FAILURE_LIMIT', '0'],
    ['AUTH_FAILURE_LIMIT', '-3'],
    ['AUTH_FAILURE_WINDOW', '0'],
    ['AUTH_FAILURE_WINDOW', '1m'],
  ];
  for (const [name, value] of bad) {
    it(`refuses ${name}="${value}" with a message naming it`, () => {
      const problems = configProblems({ [name]: value });
      expect(problems).to.have.length(1);
      expect(problems[0]).to.match(new RegExp(`^${name}: `));
    });
  }
});
