// A flag given last without its value gets the command line's own message, naming the flag and
// the value it takes as the usage writes it, never the words of Node's argument parser.
import { expect } from 'chai';
import { expectRefused, runCli } from '../support/cli.ts';

describe('cli: a flag given last without its value', function () {
  this.timeout(60_000);

  const cases: [string[], string][] = [
    [['keys', 'create', '--account'], 'error: --account needs a value (--account NAME), and nothing follows it\n'],
    [['keys', 'create', '--account', 'shop', '--permissions'], 'error: --permissions needs a value (--permissions a,b|all), and nothing follows it\n'],
    [['devices', 'register', '--account', 'shop', '--name'], 'error: --name needs a value (--name DEVICE_NAME), and nothing follows it\n'],
  ];
  for (const [args, message] of cases) {
    it(`when "${args.join(' ')}" is run, then it exits 2 naming the flag and the value it takes`, async () => {
      const result = await runCli(args, {});
      expectRefused(result, 2);
      expect(result.stderr, result.transcript).to.contain(message).and.not.to.contain('argument missing');
    });
  }
});
