// Packs the device agent into dist/agent/sms-gateway-agent.tgz, the file the gateway serves at
// GET /agent/sms-gateway-agent.tgz: one script bundled by esbuild with its dependencies (mqtt and
// what it needs), a package.json without dependencies, the README and the systemd unit.
// `npm install -g` of it therefore never asks a registry for anything, which a phone in Termux may
// not reach or may have to build native code for. serialport stays outside the bundle: it is
// native, and only a modem needs it (installed beside the agent, docs/agent-modem.md). Plain
// JavaScript, like build.js: it runs before anything is compiled.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, readStamp, ROOT, walk } from './source-files.js';

const AGENT = join(ROOT, 'agent');
export const AGENT_PACKAGE = join(ROOT, 'dist', 'agent', 'sms-gateway-agent.tgz');
const STAMP = join(ROOT, 'dist', 'agent', '.build-stamp.json');
const UNIT = 'deploy/agent/sms-gateway-agent@.service';
const INPUTS = ['agent/package.json', 'agent/README.md', UNIT, 'scripts/agent-pack.js', 'package-lock.json'];

/** Packs the agent unless the package is fresh (or `force`). Returns whether it packed. */
export async function ensureAgentPacked({ force = false } = {}) {
  // dist/ shipped without the sources (the container image): what is there is what there is.
  if (!existsSync(join(AGENT, 'src', 'cli', 'run.ts'))) return false;
  const sources = agentFingerprint();
  if (!force && readStamp(STAMP)?.sources === sources && existsSync(AGENT_PACKAGE)) return false;
  const manifest = JSON.parse(readFileSync(join(AGENT, 'package.json'), 'utf8'));
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: [join(AGENT, 'src', 'cli', 'run.ts')],
    bundle: true,
    write: false,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: ['serialport'],
    // CommonJS dependencies call require(); an ES module has none of its own.
    banner: { js: "#!/usr/bin/env node\nimport { createRequire as agentRequire } from 'node:module';\nconst require = agentRequire(import.meta.url);" },
    logLevel: 'silent',
    legalComments: 'inline',
  });
  const packageJson = {
    name: manifest.name,
    version: manifest.version,
    description: manifest.description,
    type: 'module',
    license: manifest.license,
    engines: manifest.engines,
    // The agent reads its version from ../package.json beside its script: dist/ keeps that true.
    bin: { 'sms-gateway-agent': 'dist/sms-gateway-agent.js' },
  };
  const tgz = gzipSync(
    tar([
      { name: 'package/package.json', content: Buffer.from(`${JSON.stringify(packageJson, null, 2)}\n`), mode: 0o644 },
      { name: 'package/README.md', content: readFileSync(join(AGENT, 'README.md')), mode: 0o644 },
      // The systemd unit for a modem (docs/agent-modem.md), installed with the agent.
      { name: 'package/deploy/sms-gateway-agent@.service', content: readFileSync(join(ROOT, UNIT)), mode: 0o644 },
      { name: 'package/dist/sms-gateway-agent.js', content: Buffer.from(result.outputFiles[0].contents), mode: 0o755 },
    ]),
    { level: 9 },
  );
  mkdirSync(join(ROOT, 'dist', 'agent'), { recursive: true });
  const staging = `${AGENT_PACKAGE}.${process.pid}.tmp`;
  writeFileSync(staging, tgz);
  // Renamed into place: a gateway serving the file never sends half of one.
  renameSync(staging, AGENT_PACKAGE);
  writeFileSync(STAMP, `${JSON.stringify({ sources, builtAt: new Date().toISOString() })}\n`);
  return true;
}

function agentFingerprint() {
  const entries = [];
  walk(join(AGENT, 'src'), entries);
  for (const file of INPUTS) if (existsSync(join(ROOT, file))) entries.push(describe(join(ROOT, file)));
  return createHash('sha256').update(entries.sort().join('\n')).digest('hex');
}

/** A ustar archive of regular files (what npm reads), with a fixed date: the same sources give the same bytes. */
function tar(files) {
  const blocks = [];
  for (const file of files) {
    const header = Buffer.alloc(512);
    header.write(file.name, 0, 100, 'utf8');
    header.write(`${file.mode.toString(8).padStart(7, '0')}\0`, 100);
    header.write('0000000\0', 108);
    header.write('0000000\0', 116);
    header.write(`${file.content.length.toString(8).padStart(11, '0')}\0`, 124);
    header.write(`${(315532800).toString(8).padStart(11, '0')}\0`, 136);
    header.write('        ', 148);
    header.write('0', 156);
    header.write('ustar\0', 257);
    header.write('00', 263);
    let sum = 0;
    for (const byte of header) sum += byte;
    header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
    blocks.push(header, file.content, Buffer.alloc((512 - (file.content.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}
