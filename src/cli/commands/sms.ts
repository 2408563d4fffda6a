// `sms-gateway sms send|list`: an SMS sent, or the latest listed, through a running gateway's API
// with an API key (../api-client.ts), as any client would.
import { API_CLIENT_ENVIRONMENT, calling, gatewayClient } from '../api-client.ts';
import { parseFlags, wholeNumberFlag, withActions } from '../flags.ts';
import { CliError, type Output } from '../output.ts';
import { EXTENDED_STATUSES } from '../../modules/messages/status.ts';

export const USAGE = `usage:
  sms-gateway sms send --phone NUMBER --message TEXT [--device DEVICE_ID] [--json]
  sms-gateway sms list [--status STATUS] [--limit N] [--json]
send queues an SMS (it waits as pending until a phone takes it); list shows the latest, newest first:
N of them (1-100, default 20), and only those of STATUS when given, one of
${EXTENDED_STATUSES.join(', ')}.
${API_CLIENT_ENVIRONMENT}`;

export const smsCommand = withActions({ send, list }, USAGE);

interface SmsAnswer {
  id: string;
  phone: string;
  status: string;
  device_id: string | null;
  sent_at: string;
  updated_at: string;
}

async function send(args: string[], out: Output): Promise<void> {
  const { values } = parseFlags(args, { phone: { type: 'string' }, message: { type: 'string' }, device: { type: 'string' } }, USAGE);
  if (!values.phone || values.message === undefined) throw new CliError(`sms send needs --phone and --message\n${USAGE}`);
  const body = { phone: values.phone, message: values.message, ...(values.device ? { device_id: values.device } : {}) };
  const client = gatewayClient();
  const sms = await calling(() => client.post<SmsAnswer>('/sms', body));
  out.result(sms, () => `SMS ${sms.id} queued for ${sms.phone} (status ${sms.status})`);
}

async function list(args: string[], out: Output): Promise<void> {
  const { values } = parseFlags(args, { status: { type: 'string' }, limit: { type: 'string' } }, USAGE);
  const limit = values.limit === undefined ? 20 : wholeNumberFlag('--limit', values.limit, 1, 100);
  // Checked here as well as by the API: the gateway's refusal would come after a round trip, and
  // only once a key and a running gateway are at hand.
  if (values.status !== undefined && !(EXTENDED_STATUSES as readonly string[]).includes(values.status)) {
    throw new CliError(`--status must be one of ${EXTENDED_STATUSES.join(', ')}, got "${values.status}"`);
  }
  const client = gatewayClient();
  const page = await calling(() => client.get<{ data: SmsAnswer[] }>('/sms', { limit, status: values.status }));
  out.rows(page.data, (sms) => ({ ID: sms.id, PHONE: sms.phone, STATUS: sms.status, DEVICE: sms.device_id ?? '-', UPDATED: sms.updated_at }));
}
