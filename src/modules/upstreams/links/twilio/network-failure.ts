// A request that got no answer, in the words of a refusal: a timeout, a refused or reset
// connection, a name that does not resolve, or a destination the guard refused (the provider's
// host resolved to an address the gateway may not reach). Pure.

export interface NetworkFailure {
  code: string;
  detail: string;
  /** The destination guard refused the address: no later attempt does better until the settings change. */
  blocked: boolean;
}

const TIMEOUTS = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

export function readNetworkFailure(error: unknown): NetworkFailure {
  const chain = causes(error);
  const blocked = chain.find((cause) => cause.code === 'EBLOCKED');
  if (blocked) return { code: 'destination_refused', detail: blocked.message, blocked: true };
  const coded = chain.find((cause) => typeof cause.code === 'string');
  const code = coded?.code ?? 'network_error';
  if (TIMEOUTS.has(code)) return { code: 'timeout', detail: 'the provider did not answer in time', blocked: false };
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return { code, detail: 'the provider\'s host name does not resolve', blocked: false };
  if (code === 'ECONNREFUSED') return { code, detail: 'the provider refused the connection', blocked: false };
  if (code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE') return { code, detail: 'the provider\'s answer was too large', blocked: false };
  return { code, detail: `the provider could not be reached (${code})`, blocked: false };
}

/** The error and the causes it wraps (undici wraps a socket's error in its own). */
function causes(error: unknown): { code?: string; message: string }[] {
  const chain: { code?: string; message: string }[] = [];
  let current: unknown = error;
  while (current instanceof Error && chain.length < 5) {
    const code = (current as NodeJS.ErrnoException).code;
    chain.push(typeof code === 'string' ? { code, message: current.message } : { message: current.message });
    current = current.cause;
  }
  return chain;
}
