// What the gateway POSTs to a Twilio receiver, form-encoded as Twilio does: a StatusCallback per
// status change of an SMS created through the Twilio API, and an incoming SMS to a credential's
// sms_url. "From" of an SMS we send is the phone's device id (we do not know its number); "To"
// of an incoming SMS likewise.
import type { SmsStatus } from '../messages/status.ts';
import type { IncomingSmsRow } from '../incoming/types.ts';
import { countSegments } from '../../common/sms-segments.ts';
import { messageSid } from './sids.ts';
import { twilioErrorCode, twilioStatus, type TwilioStatus } from './statuses.ts';

export const API_VERSION = '2010-04-01';

export function statusCallbackParams(
  accountSid: string,
  sms: { id: string; phone: string; device_id: string | null },
  status: TwilioStatus,
  errorCode: number | null,
): URLSearchParams {
  const sid = messageSid(sms.id);
  const params = new URLSearchParams({
    AccountSid: accountSid,
    ApiVersion: API_VERSION,
    MessageSid: sid,
    SmsSid: sid,
    MessageStatus: status,
    SmsStatus: status,
    To: sms.phone,
    From: sms.device_id ?? '',
  });
  if (errorCode !== null) params.set('ErrorCode', String(errorCode));
  return params;
}

/** The Twilio statuses a change passes through, in order, each once (pending then processing is queued, sending). */
export function twilioSteps(from: SmsStatus, path: SmsStatus[], reason: string | null): { status: TwilioStatus; errorCode: number | null }[] {
  const steps: { status: TwilioStatus; errorCode: number | null }[] = [];
  let previous = twilioStatus(from, null);
  path.forEach((status, i) => {
    const last = i === path.length - 1;
    const named = twilioStatus(status, last ? reason : null);
    if (named === previous) return;
    previous = named;
    steps.push({ status: named, errorCode: twilioErrorCode(status, last ? reason : null) });
  });
  return steps;
}

export function inboundParams(accountSid: string, sms: IncomingSmsRow): URLSearchParams {
  const sid = messageSid(sms.id);
  return new URLSearchParams({
    AccountSid: accountSid,
    ApiVersion: API_VERSION,
    MessageSid: sid,
    SmsSid: sid,
    SmsMessageSid: sid,
    From: sms.phone,
    To: sms.device_id ?? '',
    Body: sms.message,
    NumMedia: '0',
    NumSegments: String(countSegments(sms.message).segments),
  });
}
