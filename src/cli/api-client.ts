// The commands that act as a client of a running gateway (sms send, sms list, devices list): the
// Extended API over HTTP with one API key, so they are bounded by its permissions and go through
// the checks every client's requests go through. SMS_GATEWAY_KEY is the key; SMS_GATEWAY_URL the
// gateway, this machine's PORT when unset.
import { loadConfig } from '../config.ts';
import { GatewayApiClient, GatewayApiError } from '../api/mcp/gateway-client.ts';
import { McpSettingsError, readMcpSettings } from '../api/mcp/settings.ts';
import { gatewayBaseUrl } from './gateway-address.ts';
import { CliError } from './output.ts';

export const API_CLIENT_ENVIRONMENT = `environment:
  SMS_GATEWAY_KEY   the API key the command acts with (sms-gateway keys create, or the first-start key)
  SMS_GATEWAY_URL   the gateway's base URL; unset: this machine at HOST and PORT (http://localhost:3000)`;

export function gatewayClient(): GatewayApiClient {
  const env = { ...process.env };
  if (!env.SMS_GATEWAY_URL?.trim()) env.SMS_GATEWAY_URL = gatewayBaseUrl(loadConfig());
  try {
    const settings = readMcpSettings(env);
    return new GatewayApiClient(settings.baseUrl, settings.key);
  } catch (error) {
    // The settings are the MCP server's; its messages speak of the assistant, here it is the command.
    if (error instanceof McpSettingsError) throw new CliError(error.message.replace('the assistant acts with', 'the command acts with'), 2);
    throw error;
  }
}

/** Runs a call to the gateway; its refusal becomes the command's message and exit code 1. */
export async function calling<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof GatewayApiError) throw new CliError(error.status ? `the gateway answered ${error.status} ${error.code}: ${error.message}` : error.message, 1);
    throw error;
  }
}
