// `sms-gateway mcp`: an MCP server on stdin/stdout for an AI assistant, acting with one API key
// against a running gateway's Extended API. stdout belongs to the protocol: nothing else is
// written there; problems go to stderr.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { GatewayApiClient } from '../../api/mcp/gateway-client.ts';
import { McpSettingsError, readMcpSettings } from '../../api/mcp/settings.ts';
import { createMcpServer } from '../../api/mcp/tools.ts';
import { CliError, type Output } from '../output.ts';
import { parseFlags } from '../flags.ts';

export const USAGE = `usage: sms-gateway mcp
Runs an MCP (Model Context Protocol) server on stdin/stdout, for an AI assistant to send and read
SMS through a running gateway. It calls the gateway's Extended API, so the assistant may do what
the API key may do, no more.

environment:
  SMS_GATEWAY_KEY   the API key the tools act with (sms-gateway keys create)
  SMS_GATEWAY_URL   the gateway's base URL, such as http://localhost:3000

stdout carries the protocol's JSON-RPC messages and nothing else, so mcp takes no --json.
docs/mcp.md shows how to add it to an assistant's configuration.`;

export async function mcpCommand(args: string[], out: Output): Promise<void> {
  parseFlags(args, {}, USAGE);
  // Taken silently, --json would promise a JSON document the protocol never prints.
  if (out.json) throw new CliError('mcp takes no --json: its stdout is the MCP protocol, JSON-RPC messages already');
  let settings;
  try {
    settings = readMcpSettings(process.env);
  } catch (error) {
    if (error instanceof McpSettingsError) throw new CliError(error.message, 2);
    throw error;
  }
  const server = createMcpServer(new GatewayApiClient(settings.baseUrl, settings.key));
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = () => resolve();
    // The assistant closing its end of stdin ends the session.
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  await closed;
  await server.close();
}
