// An MCP session the way an assistant opens one: the SDK's own Client, either spawning
// `sms-gateway mcp` over stdio with the key and URL in its environment, or over streamable HTTP
// to the gateway's own endpoint with the key as a Bearer token.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { join } from 'node:path';
import { REPO_ROOT } from './cli.ts';

const BIN = join(REPO_ROOT, 'bin', 'sms-gateway.js');

export class McpSession {
  private stderrText = '';

  private constructor(readonly client: Client) {}

  /** `sms-gateway mcp` as a child process, acting with `key` against the gateway at `baseUrl`. */
  static async overStdio(baseUrl: string, key: string): Promise<McpSession> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp'],
      cwd: REPO_ROOT,
      env: { SMS_GATEWAY_URL: baseUrl, SMS_GATEWAY_KEY: key },
      stderr: 'pipe',
    });
    const session = new McpSession(new Client({ name: 'sms-gateway-tests', version: '1.0.0' }));
    transport.stderr?.on('data', (chunk: Buffer) => {
      session.stderrText += chunk.toString('utf8');
    });
    await session.client.connect(transport);
    return session;
  }

  /** The gateway's own MCP endpoint at `url`, with `key` as the Bearer token. */
  static async overHttp(url: string, key: string): Promise<McpSession> {
    const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${key}` } } });
    const session = new McpSession(new Client({ name: 'sms-gateway-tests', version: '1.0.0' }));
    await session.client.connect(transport);
    return session;
  }

  /** What the server wrote to stderr (stdio only). */
  get stderr(): string {
    return this.stderrText;
  }

  async call(name: string, args: Record<string, unknown> = {}): Promise<CallToolResult & { structuredContent?: any }> {
    return (await this.client.callTool({ name, arguments: args })) as CallToolResult;
  }

  /** The text part of a result, for assertions and their messages. */
  static textOf(result: CallToolResult): string {
    return result.content.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join('\n');
  }

  stop(): Promise<void> {
    return this.client.close();
  }
}
