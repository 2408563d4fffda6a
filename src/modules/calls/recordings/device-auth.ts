// A phone authenticates its HTTP uploads as it does its MQTT connection: its device id and token
// (MQTT username and password), here as HTTP Basic credentials. Failed attempts count against the
// client address in the same throttle as API keys, so guessing tokens over HTTP costs as much.
import type { Context } from 'koa';
import { AppError } from '../../../common/errors.ts';
import type { AuthThrottle } from '../../../common/auth-throttle.ts';
import { isUuid } from '../../../common/object-id.ts';
import { secretMatches } from '../../../common/secrets.ts';
import type { Database } from '../../../storage/database.ts';
import { findLiveDevice, type DeviceRow } from '../../devices/repository.ts';
import { addressOf } from '../../../http/middleware/client-address.ts';

const REALM = 'Basic realm="sms-gateway device", charset="UTF-8"';

export async function authenticateDevice(ctx: Context, db: Database, throttle: AuthThrottle): Promise<DeviceRow> {
  const address = addressOf(ctx);
  const refusedForMs = throttle.refusedFor(address, 'http');
  if (refusedForMs > 0) {
    ctx.set('Retry-After', String(Math.ceil(refusedForMs / 1000)));
    throw new AppError('too_many_auth_failures');
  }
  const match = /^Basic[ \t]+([A-Za-z0-9+/=]+)[ \t]*$/i.exec(ctx.get('authorization'));
  const decoded = match ? Buffer.from(match[1]!, 'base64').toString('utf8') : '';
  const colon = decoded.indexOf(':');
  if (colon < 0) {
    // Not counted: no credentials were presented, so nothing was guessed.
    ctx.set('WWW-Authenticate', REALM);
    throw new AppError('invalid_device_credentials');
  }
  const deviceId = decoded.slice(0, colon);
  const token = decoded.slice(colon + 1);
  const device = isUuid(deviceId) ? await findLiveDevice(db, deviceId.toLowerCase()) : undefined;
  if (!device || !device.token_hash || !secretMatches(token, device.token_hash)) {
    throttle.failed(address, 'http');
    ctx.set('WWW-Authenticate', REALM);
    throw new AppError('invalid_device_credentials', 'the device id and token do not match a registered device');
  }
  return device;
}
