// `sms-gateway devices list`: the account's phones and whether each is online, through a running
// gateway's API (only the gateway knows who is connected) with an API key (../api-client.ts).
import { API_CLIENT_ENVIRONMENT, calling, gatewayClient } from '../api-client.ts';
import { parseFlags } from '../flags.ts';
import type { Output } from '../output.ts';

export const DEVICES_LIST_USAGE = `  sms-gateway devices list [--json]   (a running gateway's API:
${API_CLIENT_ENVIRONMENT.replace(/^/gm, '  ')})`;

interface DeviceAnswer {
  id: string;
  name: string;
  name_custom: string | null;
  is_online: boolean;
  last_seen_at: string | null;
}

export async function listDevices(args: string[], out: Output, usage: string): Promise<void> {
  parseFlags(args, {}, usage);
  const client = gatewayClient();
  const page = await calling(() => client.get<{ data: DeviceAnswer[] }>('/devices', { limit: 100 }));
  out.rows(page.data, (device) => ({
    ID: device.id,
    NAME: device.name_custom ?? device.name,
    ONLINE: device.is_online ? 'yes' : 'no',
    LAST_SEEN: device.last_seen_at ?? '-',
  }));
}
