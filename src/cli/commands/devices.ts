import { CliError, type Output } from '../output.ts';
import { withServices } from '../context.ts';
import { parseFlags } from '../flags.ts';

const USAGE = 'usage: sms-gateway devices register --account NAME --name DEVICE_NAME [--json]';

export async function devicesCommand(args: string[], out: Output): Promise<void> {
  const [action, ...rest] = args;
  if (action !== 'register') throw new CliError(USAGE);
  const { values } = parseFlags(rest, { account: { type: 'string' }, name: { type: 'string' } }, USAGE);
  if (!values.account || !values.name) throw new CliError(`devices register needs --account and --name\n${USAGE}`);
  const { account, name } = values as { account: string; name: string };
  const { device, token } = await withServices(async (services) => {
    const owner = await services.accounts.require(account);
    return services.devices.register(owner.id, name);
  });
  const credentials = { client_id: device.id, username: device.id, password: token };
  out.result(
    { device_id: device.id, object_id: device.object_id, name: device.name, credentials },
    () =>
      [
        `device "${device.name}" registered`,
        `  device id (MQTT client id and username): ${device.id}`,
        `  legacy object id:                        ${device.object_id}`,
        `  token (MQTT password, shown once):       ${token}`,
      ].join('\n'),
  );
}
