// DATABASE_URL may name several PostgreSQL servers, as libpq reads it:
//   postgres://user@db1:5432,db2:5433/sms?target_session_attrs=read-write
// node-postgres reads one host only, so the list is read here, and the gateway connects to the
// hosts in order until one accepts writes (database-primary.ts). One host is left as it was
// written: pg reads it as before, a proxy or a cloud endpoint in front of the servers included.
// Pure: no connections here.
import { isIPv6 } from 'node:net';

/** Which server of the list the gateway uses: libpq's target_session_attrs, those that write. */
export type TargetSessionAttrs = 'read-write' | 'primary' | 'any';

export interface DatabaseHost {
  /** A name or an address (IPv6 without its brackets), decoded. */
  host: string;
  port: number;
}

export interface DatabaseTarget {
  hosts: DatabaseHost[];
  /** read-write: `transaction_read_only` off; primary: not in recovery; any: the first that answers. */
  targetSessionAttrs: TargetSessionAttrs;
  /**
   * The URL with one placeholder host in place of the list, and the other options as written
   * (user, password, database, sslmode...) but target_session_attrs, which pg does not know.
   */
  template: string;
}

const SCHEME = /^(postgres|postgresql):\/\//i;
const TARGETS: readonly string[] = ['read-write', 'primary', 'any'];
const DEFAULT_PORT = 5432;

/**
 * The hosts a PostgreSQL URL names, or an Error saying what is wrong with it (never echoing the
 * URL, which may hold a password). One host: undefined, the URL is pg's to read as it is.
 */
export function parseDatabaseUrl(raw: string): DatabaseTarget | undefined {
  const scheme = SCHEME.exec(raw);
  if (!scheme) throw new Error('must start with postgres:// or postgresql://');
  const afterScheme = raw.slice(scheme[0].length);
  const authorityEnd = afterScheme.search(/[/?#]/);
  const authority = authorityEnd < 0 ? afterScheme : afterScheme.slice(0, authorityEnd);
  const rest = authorityEnd < 0 ? '' : afterScheme.slice(authorityEnd);
  const at = authority.lastIndexOf('@');
  const userinfo = at < 0 ? '' : authority.slice(0, at + 1);
  const hostList = authority.slice(at + 1);
  const [path, query = ''] = splitOnce(rest.replace(/#.*$/, ''), '?');
  const params = new URLSearchParams(query);
  const attrs = params.get('target_session_attrs');
  if (attrs !== null && !TARGETS.includes(attrs)) {
    throw new Error(`target_session_attrs=${attrs} is not one the gateway can use: it writes, so read-write (the default), primary or any`);
  }
  params.delete('target_session_attrs');
  const entries = hostList.split(',');
  if (entries.length === 1) {
    // As before: one host is pg's to read; only a URL that is no URL at all is refused here.
    try {
      new URL(raw);
    } catch {
      throw new Error('is not a valid URL');
    }
    return undefined;
  }
  const hosts = entries.map((entry, index) => readHost(entry, index + 1));
  if (params.has('host') || params.has('port')) throw new Error('names its hosts twice: in the list and in host= or port=; keep the list');
  const remaining = params.toString();
  const template = `postgres://${userinfo}placeholder${path || '/'}${remaining ? `?${remaining}` : ''}`;
  try {
    new URL(template);
    decodeURIComponent(userinfo);
    decodeURIComponent(path ?? '');
  } catch {
    throw new Error('is not a valid URL (a user, password or database name with bad percent-encoding?)');
  }
  return { hosts, targetSessionAttrs: (attrs ?? 'read-write') as TargetSessionAttrs, template };
}

/**
 * A connection string for one host of `target`, as pg reads it: the host in host= and port=,
 * which pg prefers to the URL's own (an IPv6 address would keep its brackets there).
 */
export function hostConnectionString(target: DatabaseTarget, host: DatabaseHost): string {
  const url = new URL(target.template);
  url.searchParams.set('host', host.host);
  url.searchParams.set('port', String(host.port));
  return url.toString();
}

/** host:port, IPv6 in brackets: for logs and messages. */
export function hostLabel(host: DatabaseHost): string {
  return `${isIPv6(host.host) ? `[${host.host}]` : host.host}:${host.port}`;
}

/** The servers and database a URL names, without the credentials: for messages. */
export function databaseLocation(raw: string): string {
  const target = parseDatabaseUrl(raw);
  if (!target) {
    const url = new URL(raw);
    return `${url.hostname}:${url.port || DEFAULT_PORT}${url.pathname}`;
  }
  return `${target.hosts.map(hostLabel).join(',')}${new URL(target.template).pathname}`;
}

function readHost(entry: string, position: number): DatabaseHost {
  const where = `host ${position} of the list`;
  let host: string;
  let port: string | undefined;
  if (entry.startsWith('[')) {
    const close = entry.indexOf(']');
    if (close < 0) throw new Error(`${where}: an IPv6 address opened with [ is not closed with ]`);
    host = entry.slice(1, close);
    const after = entry.slice(close + 1);
    if (after !== '' && !after.startsWith(':')) throw new Error(`${where}: only :port may follow an IPv6 address in brackets`);
    port = after === '' ? undefined : after.slice(1);
    if (!isIPv6(host)) throw new Error(`${where}: [${host}] is not an IPv6 address`);
  } else {
    if (entry.indexOf(':') !== entry.lastIndexOf(':')) throw new Error(`${where}: an IPv6 address goes in brackets, such as [::1]:5432`);
    [host, port] = splitOnce(entry, ':');
    try {
      host = decodeURIComponent(host);
    } catch {
      throw new Error(`${where}: bad percent-encoding in the host name`);
    }
    if (host.includes(':')) throw new Error(`${where}: an IPv6 address goes in brackets, such as [::1]:5432`);
  }
  if (host === '') throw new Error(`${where} is empty: write host:port pairs separated by commas`);
  if (port === undefined || port === '') return { host, port: DEFAULT_PORT };
  const number = Number(port);
  if (!/^\d{1,5}$/.test(port) || number < 1 || number > 65_535) throw new Error(`${where}: the port must be a number from 1 to 65535`);
  return { host, port: number };
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const index = text.indexOf(separator);
  return index < 0 ? [text, undefined] : [text.slice(0, index), text.slice(index + 1)];
}
