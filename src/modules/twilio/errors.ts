// Errors as Twilio answers them: { code, message, more_info, status }. The gateway's own errors
// (AppError) are translated, so a client written for Twilio reads a code it knows; what has no
// Twilio code of its own keeps its HTTP status with the nearest one.
import { AppError } from '../../common/errors.ts';

export class TwilioError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
  ) {
    super(message);
  }

  toBody() {
    return { code: this.code, message: this.message, more_info: `https://www.twilio.com/docs/errors/${this.code}`, status: this.status };
  }
}

export const authenticationFailed = () => new TwilioError(401, 20003, 'Authenticate');
export const notFound = (what = 'The requested resource') => new TwilioError(404, 20404, `${what} was not found`);
/**
 * A credential whose auth token the gateway cannot decrypt (sealed under another key): no request
 * with it can ever succeed, so it is refused as an authentication failure (a client does not retry
 * it as it would a 5xx), with the remedy in the message.
 */
export const credentialUnreadable = () =>
  new TwilioError(
    401,
    20003,
    'Authenticate: this AccountSid\'s auth token cannot be decrypted by the gateway (it was stored under another WEBHOOK_SECRET_KEY or DATA_DIR); rotate the token (POST /api/ext/v1/twilio/credentials/{sid}/rotate) or create a new credential',
  );
/** 20001: a parameter the API does not take, or a value it cannot read. */
export const invalidParameter = (message: string) => new TwilioError(400, 20001, message);

/** The Twilio error an AppError of the gateway stands for. */
export function fromAppError(error: AppError): TwilioError {
  switch (error.code) {
    case 'invalid_phone':
      return new TwilioError(400, 21211, `The 'To' number is not a valid phone number. ${error.message}`);
    case 'message_too_long':
      return new TwilioError(400, 21617, 'The concatenated message body exceeds the 1600 character limit');
    case 'sms_not_found':
    case 'device_not_found':
    case 'route_not_found':
      return notFound();
    case 'device_cannot_send':
      return new TwilioError(400, 21606, `The 'From' phone number provided is not a valid message-capable phone number for this account. ${error.message}`);
    case 'no_device_available':
      return new TwilioError(503, 20429, error.message);
    case 'already_taken':
    case 'already_final':
      return new TwilioError(409, 20009, error.message);
    case 'too_many_auth_failures':
      return new TwilioError(429, 20429, 'Too Many Requests');
    case 'unauthorized':
      return authenticationFailed();
    case 'recipient_opted_out':
      return new TwilioError(400, 21610, 'Attempt to send to unsubscribed recipient');
    case 'invalid_webhook_url':
      return new TwilioError(400, 21609, `Invalid StatusCallback: ${error.message}`);
    default:
      return new TwilioError(error.status, error.status >= 500 ? 20500 : error.status === 429 ? 20429 : 20001, error.message);
  }
}
