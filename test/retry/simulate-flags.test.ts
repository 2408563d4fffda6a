// `sms-gateway simulate --fail-sim SLOT:CODE` (a SIM whose every send fails) and `--sims N`: bad
// values are refused in one line naming the flag, exit status 2, before anything connects.
import { expect } from 'chai';
import { expectRefused, killChildren, runCli } from '../support/cli.ts';

describe('cli: simulate --fail-sim and --sims', function () {
  this.timeout(60_000);
  after(() => killChildren());

  const bad: [string[], string][] = [
    [['--fail-sim', 'no_service'], '--fail-sim must be SLOT:CODE'],
    [['--fail-sim', '3:no_service'], '--fail-sim must be SLOT:CODE'],
    [['--fail-sim', '1:No Service'], '--fail-sim must be SLOT:CODE'],
    [['--fail-sim', '1:no_service', '--fail-sim', '1:no_credit'], 'slot 1 is given twice'],
    [['--fail-sim', '2:no_service', '--sims', '2'], 'the devices have SIM slots 0-1'],
    [['--sims', '4'], '--sims'],
  ];
  for (const [flags, message] of bad) {
    it(`when given ${flags.join(' ')}, then it exits 2 and says "${message}"`, async () => {
      const result = await runCli(['simulate', '--device', '00000000-0000-4000-8000-000000000001', '--token', 'sgd_x', '--api', 'http://127.0.0.1:9', '--mqtt', 'mqtt://127.0.0.1:9', ...flags], {});
      expectRefused(result, 2);
      expect(result.stderr).to.contain(message);
    });
  }
});
