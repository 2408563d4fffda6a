// The MCP configurations the docs give start our checkout's command, never a package fetched by
// name: `npx sms-gateway` would download whatever someone published as `sms-gateway` and run it
// without a terminal, with the API key in its environment.
import { readFileSync } from 'node:fs';
import { expect } from 'chai';

interface ServerEntry {
  command?: string;
  args?: string[];
  url?: string;
}

/** Every server of every `mcpServers` JSON block in a Markdown file. */
function mcpServers(file: string): ServerEntry[] {
  const blocks = [...readFileSync(file, 'utf8').matchAll(/```json\n([\s\S]*?)```/g)].map((match) => match[1]!);
  return blocks
    .filter((block) => block.includes('"mcpServers"'))
    .flatMap((block) => Object.values((JSON.parse(block) as { mcpServers: Record<string, ServerEntry> }).mcpServers));
}

/** The npx-run shell commands of a file's code blocks (`claude mcp add ... -- <command>` included). */
function shellLines(file: string): string[] {
  const blocks = [...readFileSync(file, 'utf8').matchAll(/```(?:sh|bash|shell)?\n([\s\S]*?)```/g)].map((match) => match[1]!);
  return blocks.flatMap((block) => block.split('\n'));
}

/** npx with a package name and no --no-install: the registry may be asked for the package. */
function fetchesByName(command: string, args: string[]): boolean {
  return /(^|\/)npx$/.test(command) && !args.includes('--no-install') && args.some((arg) => /^sms-gateway$/.test(arg));
}

describe('MCP configuration in the docs', () => {
  for (const file of ['docs/mcp.md', 'README.md']) {
    it(`${file}: every stdio server is started by absolute path, none through npx by package name`, () => {
      const servers = mcpServers(file);
      const stdio = servers.filter((server) => server.command !== undefined);
      expect(stdio, 'the file shows an mcpServers block with a command').to.not.be.empty;
      for (const server of stdio) {
        expect(fetchesByName(server.command!, server.args ?? []), JSON.stringify(server)).to.equal(false);
        expect(server.command, JSON.stringify(server)).to.equal('node');
        expect(server.args?.[0], JSON.stringify(server)).to.match(/^\/.*\/bin\/sms-gateway\.js$/);
      }
      for (const line of shellLines(file)) expect(line, line).to.not.match(/\bnpx\s+(?!--no-install\b)(-\S+\s+)*sms-gateway\s+mcp\b/);
    });
  }
});
