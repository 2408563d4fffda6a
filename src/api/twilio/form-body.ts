// Twilio's helper libraries send parameters form-encoded (application/x-www-form-urlencoded).
// The body is read only after the caller authenticated, up to the gateway's body limit, without
// holding an admission place while it arrives; a repeated name keeps its first value.
import type { Context } from 'koa';
import type { IncomingMessage } from 'node:http';
import { whileClientSends } from '../../http/middleware/admission.ts';
import { TwilioError } from '../../modules/twilio/errors.ts';

export async function readForm(ctx: Context, limitBytes: number): Promise<Map<string, string>> {
  const length = ctx.get('content-length');
  const hasBody = (length !== '' && length !== '0') || ctx.get('transfer-encoding') !== '';
  if (!hasBody) return new Map();
  if (!ctx.is('application/x-www-form-urlencoded')) {
    throw new TwilioError(415, 20001, 'Parameters must be sent form-encoded (Content-Type: application/x-www-form-urlencoded)');
  }
  const text = await whileClientSends(ctx.req, () => readText(ctx.req, limitBytes));
  return paramsOf(new URLSearchParams(text));
}

async function readText(request: IncomingMessage, limitBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of request as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limitBytes) break;
      chunks.push(chunk);
    }
  } catch {
    throw new TwilioError(400, 20001, 'The request body was cut short');
  }
  if (size > limitBytes) throw new TwilioError(413, 20001, `The request body must not exceed ${limitBytes} bytes`);
  return Buffer.concat(chunks).toString('utf8');
}

export function paramsOf(search: URLSearchParams): Map<string, string> {
  const params = new Map<string, string>();
  for (const [name, value] of search) {
    if (value.includes('\u0000')) throw new TwilioError(400, 20001, `${name} must not contain NUL characters`);
    if (!params.has(name)) params.set(name, value);
  }
  return params;
}
