// `sms-gateway serve`: runs the gateway until SIGINT/SIGTERM, then drains and closes cleanly.
import { loadConfig } from '../../config.ts';
import { createLogger } from '../../common/logger.ts';
import { Gateway } from '../../gateway.ts';
import { bootstrapFirstAccount } from '../../modules/accounts/bootstrap.ts';
import { parseFlags } from '../flags.ts';
import type { Output } from '../output.ts';

const USAGE = 'usage: sms-gateway serve   (configured through environment variables; see the README)';

export async function serveCommand(args: string[], out: Output): Promise<void> {
  parseFlags(args, {}, USAGE);
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const gateway = await Gateway.start(config, logger);

  const first = await bootstrapFirstAccount(gateway.services);
  if (first) printFirstStart(first, gateway.httpPort, out);

  await new Promise<void>((resolve) => {
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      logger.info({ signal }, 'stopping');
      gateway.stop().then(resolve, (error: unknown) => {
        logger.error({ err: error }, 'unclean stop');
        process.exitCode = 1;
        resolve();
      });
    };
    // `on`, not `once`: a second signal during the drain must not kill the process mid-stop.
    process.on('SIGINT', () => stop('SIGINT'));
    process.on('SIGTERM', () => stop('SIGTERM'));
  });
}

function printFirstStart(first: { account: string; key: string }, port: number, out: Output): void {
  const base = `http://localhost:${port}/api/ext/v1`;
  const auth = `-H "Authorization: Bearer ${first.key}"`;
  const json = '-H "Content-Type: application/json"';
  // Straight to stdout, not the log: the key must be seen once and never stored in log files.
  out.result({ first_start: { account: first.account, api_key: first.key, api: base } }, () =>
    [
      '',
      `First start: created account "${first.account}" and an API key with every permission.`,
      'The key is shown this once (only its hash is stored). Keep it:',
      '',
      `  ${first.key}`,
      '',
      'Send an SMS (it waits as pending until a phone is connected):',
      `  curl -s -X POST ${base}/sms ${auth} ${json} -d '{"phone": "+79161234567", "message": "Hello from the gateway"}'`,
      '',
      'Register a phone (prints its MQTT credentials), then change its settings:',
      `  curl -s -X POST ${base}/devices ${auth} ${json} -d '{"name": "my-phone"}'`,
      `  curl -s -X PATCH ${base}/devices/<device id>/settings ${auth} ${json} -d '{"name_custom": "Office phone", "selected_sim": 0}'`,
      '',
      `API reference: http://localhost:${port}/docs`,
      '',
    ].join('\n'),
  );
}
