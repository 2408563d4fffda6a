// The settings of the process's connection budget and of how long an SMPP connection may stay
// unbound: their defaults, what they read, and a clear message naming the variable for a bad value.
import { expect } from 'chai';
import { loadConfig } from '../../src/config.ts';
import { ConnectionBudget } from '../../src/common/connection-budget.ts';
import { configProblems } from '../support/config-problems.ts';

describe('configuration of the connection budget', () => {
  it('when nothing is set, then the budget is the open-file limit less the reserve, a listener\'s unauthenticated share a sixteenth of it, and SMPP connections have 5 s to bind', () => {
    const config = loadConfig({});
    expect(config.connectionBudget).to.deep.equal({ total: undefined, unauthenticatedPerListener: undefined });
    expect(config.smpp.bindTimeoutMs).to.equal(5_000);
    const budget = new ConnectionBudget(config.connectionBudget, 20_000);
    expect(budget).to.include({ total: 19_744, perListener: 1_234, allListeners: 4_936 });
  });

  it('when values are set, then they are read', () => {
    const config = loadConfig({ CONNECTION_BUDGET: '4000', UNAUTHENTICATED_CONNECTIONS: '100', SMPP_BIND_TIMEOUT: '3' });
    expect(config.connectionBudget).to.deep.equal({ total: 4000, unauthenticatedPerListener: 100 });
    expect(config.smpp.bindTimeoutMs).to.equal(3_000);
    expect(loadConfig({ CONNECTION_BUDGET: 'auto', UNAUTHENTICATED_CONNECTIONS: 'auto' }).connectionBudget).to.deep.equal({ total: undefined, unauthenticatedPerListener: undefined });
  });

  for (const [name, value] of [
    ['CONNECTION_BUDGET', '10'],
    ['CONNECTION_BUDGET', 'lots'],
    ['UNAUTHENTICATED_CONNECTIONS', '0'],
    ['UNAUTHENTICATED_CONNECTIONS', '1.5'],
    ['SMPP_BIND_TIMEOUT', '0'],
    ['SMPP_BIND_TIMEOUT', '5s'],
  ] as const) {
    it(`when ${name}=${value}, then the configuration is refused with a message naming it`, () => {
      const problems = configProblems({ [name]: value });
      expect(problems).to.have.length(1);
      expect(problems[0]).to.match(new RegExp(`^${name}: `));
    });
  }
});
