// A phone authenticates its HTTP uploads as it does its MQTT connection: its device id and token
// (MQTT username and password), here as HTTP Basic credentials. Failed attempts count in the
// throttle's device channel, per address and per device id, as the MQTT logins do: guessing
// tokens over HTTP costs as much, and an API client's failures never refuse a phone.
import type { Context } from 'koa';
import { AppError } from '../../../../common/errors.ts';
import type { AuthAttempt, AuthThrottle } from '../../../../common/auth-throttle.ts';
import { isUuid } from '../../../../common/object-id.ts';
import { secretMatches } from '../../../../common/secrets.ts';
import type { DeviceService } from '../../../../modules/devices/service.ts';
import type { DeviceRow } from '../../../../modules/devices/types.ts';
import { addressOf } from '../../../../http/middleware/client-address.ts';
import { refuseIfThrottled } from '../../../../http/middleware/authenticate.ts';

const REALM = 'Basic realm="sms-gateway device", charset="UTF-8"';

export async function authenticateDevice(ctx: Context, devices: Pick<DeviceService, 'findAnyAccount'>, throttle: AuthThrottle): Promise<DeviceRow> {
  const address = addressOf(ctx);
  const match = /^Basic[ \t]+([A-Za-z0-9+/=]+)[ \t]*$/i.exec(ctx.get('authorization'));
  const decoded = match ? Buffer.from(match[1]!, 'base64').toString('utf8') : '';
  const colon = decoded.indexOf(':');
  const deviceId = colon < 0 ? '' : decoded.slice(0, colon);
  const attempt: AuthAttempt = { channel: 'device', address, credential: isUuid(deviceId) ? deviceId.toLowerCase() : undefined };
  refuseIfThrottled(ctx, throttle.refusedFor(attempt));
  if (colon < 0) {
    // Not counted: no credentials were presented, so nothing was guessed.
    ctx.set('WWW-Authenticate', REALM);
    throw new AppError('invalid_device_credentials');
  }
  const token = decoded.slice(colon + 1);
  const device = isUuid(deviceId) ? await devices.findAnyAccount(deviceId) : undefined;
  if (!device || !device.token_hash || !secretMatches(token, device.token_hash)) {
    refuseIfThrottled(ctx, throttle.failed(attempt));
    ctx.set('WWW-Authenticate', REALM);
    throw new AppError('invalid_device_credentials', 'the device id and token do not match a registered device');
  }
  return device;
}
