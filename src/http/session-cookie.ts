// The session cookie: HttpOnly (no script reads it), SameSite=Lax (not sent on another site's
// POST), Path=/ (the panel and the API), Secure when the gateway is reached over HTTPS. Written
// by hand: Koa's cookie writer refuses a Secure cookie on a plain connection, which is what a
// gateway behind a TLS-terminating proxy sees.
import type { Context } from 'koa';

export const SESSION_COOKIE = 'sms_gateway_session';

export interface CookieOptions {
  secure: boolean;
}

export function setSessionCookie(ctx: Context, token: string, maxAgeSeconds: number, options: CookieOptions): void {
  ctx.append('Set-Cookie', cookie(token, maxAgeSeconds, options));
}

export function clearSessionCookie(ctx: Context, options: CookieOptions): void {
  ctx.append('Set-Cookie', `${cookie('', 0, options)}; Expires=Thu, 01 Jan 1970 00:00:00 GMT`);
}

function cookie(value: string, maxAgeSeconds: number, { secure }: CookieOptions): string {
  return [`${SESSION_COOKIE}=${value}`, 'Path=/', 'HttpOnly', 'SameSite=Lax', `Max-Age=${maxAgeSeconds}`, ...(secure ? ['Secure'] : [])].join('; ');
}
