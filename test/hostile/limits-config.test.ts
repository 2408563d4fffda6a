// The settings that bound hostile clients: their defaults, and a clear ConfigError naming the
// variable for a bad value.
import { expect } from 'chai';
import { loadConfig } from '../../src/config.ts';
import { configProblems } from '../support/config-problems.ts';

describe('configuration of the limits on hostile clients', () => {
  it('when nothing is set, then the defaults apply: a hard limit 10x the failure limit, 10 failures per credential in 15 minutes, 10 s for headers, 15 s for a body, 256 connections per address, the total from the open-file limit', () => {
    const config = loadConfig({});
    expect(config.authThrottle).to.include({ failureLimit: 30, windowMs: 60_000, hardLimit: 300, credentialFailureLimit: 10, credentialWindowMs: 900_000 });
    expect(config.httpLimits).to.deep.equal({ headersTimeoutMs: 10_000, bodyTimeoutMs: 15_000, maxConnectionsPerAddress: 256, maxConnections: undefined });
  });

  it('when values are set, then they are read; the hard limit follows AUTH_FAILURE_LIMIT unless set', () => {
    const config = loadConfig({
      AUTH_FAILURE_LIMIT: '5',
      AUTH_CREDENTIAL_FAILURE_LIMIT: '3',
      AUTH_CREDENTIAL_FAILURE_WINDOW: '600',
      HTTP_HEADERS_TIMEOUT: '5',
      HTTP_BODY_TIMEOUT: '30',
      HTTP_MAX_CONNECTIONS_PER_ADDRESS: '1000',
      HTTP_MAX_CONNECTIONS: '5000',
    });
    expect(config.authThrottle).to.include({ failureLimit: 5, hardLimit: 50, credentialFailureLimit: 3, credentialWindowMs: 600_000 });
    expect(config.httpLimits).to.deep.equal({ headersTimeoutMs: 5_000, bodyTimeoutMs: 30_000, maxConnectionsPerAddress: 1000, maxConnections: 5000 });
    expect(loadConfig({ AUTH_FAILURE_HARD_LIMIT: '40' }).authThrottle.hardLimit).to.equal(40);
    expect(loadConfig({ HTTP_MAX_CONNECTIONS: 'auto' }).httpLimits.maxConnections).to.equal(undefined);
  });

  const bad: [string, string, string][] = [
    ['AUTH_FAILURE_HARD_LIMIT', '10', 'at least AUTH_FAILURE_LIMIT (30)'],
    ['AUTH_FAILURE_HARD_LIMIT', 'lots', 'whole number'],
    ['AUTH_CREDENTIAL_FAILURE_LIMIT', '0', 'whole number'],
    ['AUTH_CREDENTIAL_FAILURE_WINDOW', '0', 'seconds'],
    ['HTTP_HEADERS_TIMEOUT', '0', 'whole number'],
    ['HTTP_HEADERS_TIMEOUT', '10s', 'whole number'],
    ['HTTP_BODY_TIMEOUT', '3601', 'whole number'],
    ['HTTP_MAX_CONNECTIONS_PER_ADDRESS', '0', 'whole number'],
    ['HTTP_MAX_CONNECTIONS', '10', 'whole number'],
    ['HTTP_MAX_CONNECTIONS', 'many', 'whole number'],
  ];
  for (const [name, value, says] of bad) {
    it(`when ${name}=${value}, then the configuration is refused with a message naming it`, () => {
      const problems = configProblems({ [name]: value });
      expect(problems).to.have.length(1);
      expect(problems[0]).to.match(new RegExp(`^${name}: `));
      expect(problems[0]).to.include(says);
    });
  }
});
