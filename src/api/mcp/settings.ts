// What `sms-gateway mcp` needs from its environment: the API key it acts with and the gateway's
// base URL. Both are checked before anything starts; the key itself never appears in a message.

export class McpSettingsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'McpSettingsError';
  }
}

export interface McpSettings {
  key: string;
  baseUrl: string;
}

const KEY_SHAPE = /^sgw_[0-9a-f]{10}_[A-Za-z0-9_-]{43}$/;

export function readMcpSettings(env: NodeJS.ProcessEnv): McpSettings {
  const key = env.SMS_GATEWAY_KEY?.trim();
  if (!key) throw new McpSettingsError('SMS_GATEWAY_KEY is not set: give the API key the assistant acts with (sms-gateway keys create)');
  if (!KEY_SHAPE.test(key)) throw new McpSettingsError('SMS_GATEWAY_KEY is not an API key (expected sgw_<10 hex>_<43 characters>, as `sms-gateway keys create` prints it)');
  const raw = env.SMS_GATEWAY_URL?.trim();
  if (!raw) throw new McpSettingsError('SMS_GATEWAY_URL is not set: give the gateway\'s base URL, such as http://localhost:3000');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new McpSettingsError(`SMS_GATEWAY_URL is not a URL: "${raw.slice(0, 200)}" (expected such as http://localhost:3000)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new McpSettingsError(`SMS_GATEWAY_URL must be http:// or https://, not ${url.protocol}//`);
  if (url.username || url.password) throw new McpSettingsError('SMS_GATEWAY_URL must not carry credentials: the API key goes in SMS_GATEWAY_KEY');
  if (url.search || url.hash) throw new McpSettingsError('SMS_GATEWAY_URL must be the gateway\'s base URL, without a query or fragment');
  return { key, baseUrl: `${url.origin}${url.pathname.replace(/\/+$/, '')}` };
}
