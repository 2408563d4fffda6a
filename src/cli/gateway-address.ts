// The address a command prints for reaching the gateway (a curl line, the first-start banner):
// PUBLIC_URL when it is set, since that is where the operator reaches it (behind a proxy, or
// with TLS in front); otherwise this machine on the configured HOST and PORT.
import { EXTENDED_PREFIX } from '../http/extended-prefix.ts';

export interface AddressSettings {
  publicUrl: string | undefined;
  host: string;
  port: number;
}

/** The gateway's base URL, without a trailing slash. */
export function gatewayBaseUrl({ publicUrl, host, port }: AddressSettings): string {
  if (publicUrl) return publicUrl.replace(/\/+$/, '');
  // A wildcard bind is reached on this machine through its loopback name.
  const local = host === '0.0.0.0' || host === '::' || host === '' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${local}:${port}`;
}

export function extendedApiBaseUrl(settings: AddressSettings): string {
  return `${gatewayBaseUrl(settings)}${EXTENDED_PREFIX}`;
}
