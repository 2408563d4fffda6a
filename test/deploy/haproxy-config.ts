// deploy/cluster/haproxy.cfg read as its sections (global, defaults, frontend x, backend y...),
// each with its directive lines, comments and blank lines dropped: what the tests check.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../support/cli.ts';
import { makeCertificate } from '../tls/tls-support.ts';

export const HAPROXY_CFG = join(REPO_ROOT, 'deploy', 'cluster', 'haproxy.cfg');

/** Where the shipped configuration reads its certificate (docker-compose.yml mounts it there). */
export const HAPROXY_CERT = '/etc/haproxy/certs/gateway.pem';

/** A certificate, its key after it, in one file in `directory`, as HAProxy's `crt` takes it. */
export function haproxyCertificate(directory: string): { file: string; pem: string } {
  const made = makeCertificate(directory, 'haproxy');
  const file = join(directory, 'haproxy-combined.pem');
  writeFileSync(file, readFileSync(made.certFile, 'utf8') + readFileSync(made.keyFile, 'utf8'));
  return { file, pem: made.pem };
}

/** The configuration's text with its certificate read from `certFile` instead (a test cannot write /etc/haproxy). */
export function withCertificate(text: string, certFile: string): string {
  if (!text.includes(HAPROXY_CERT)) throw new Error(`haproxy.cfg does not read ${HAPROXY_CERT}`);
  return text.split(HAPROXY_CERT).join(certFile);
}

export interface Section {
  kind: string;
  name: string;
  lines: string[];
}

const SECTION_KINDS = new Set(['global', 'defaults', 'frontend', 'backend', 'listen', 'resolvers', 'peers', 'userlist']);

export function readHaproxyConfig(text = readFileSync(HAPROXY_CFG, 'utf8')): Section[] {
  const sections: Section[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*$/, '').trim().replace(/\s+/g, ' ');
    if (line === '') continue;
    const [word, name = ''] = line.split(' ');
    if (SECTION_KINDS.has(word!)) sections.push({ kind: word!, name, lines: [] });
    else if (sections.length === 0) throw new Error(`haproxy.cfg: "${line}" comes before any section`);
    else sections.at(-1)!.lines.push(line);
  }
  return sections;
}

export function section(sections: Section[], kind: string, name: string): Section {
  const found = sections.find((candidate) => candidate.kind === kind && candidate.name === name);
  if (!found) throw new Error(`haproxy.cfg has no ${kind} ${name}`);
  return found;
}

/** The lines of `from` that start with `directive` (`timeout client`, `server`...), the directive removed. */
export function directives(from: Section, directive: string): string[] {
  return from.lines.filter((line) => line === directive || line.startsWith(`${directive} `)).map((line) => line.slice(directive.length).trim());
}

/** An HAProxy time ("16m", "60s", "500", in milliseconds when bare) in seconds. */
export function seconds(time: string): number {
  const match = /^(\d+)(us|ms|s|m|h|d)?$/.exec(time);
  if (!match) throw new Error(`not an HAProxy time: ${time}`);
  const factor = { us: 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600, d: 86_400 }[match[2] ?? 'ms']!;
  return Number(match[1]) * factor;
}
