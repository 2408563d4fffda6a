// An SMS as Twilio's Message resource shows it. Dates are RFC 2822, as Twilio writes them.
// "from" is the phone (device id) that sends or sent it, null while no phone is chosen.
import { countSegments } from '../../common/sms-segments.ts';
import type { SmsRecord } from '../../modules/messages/types.ts';
import type { SmsStatus } from '../../modules/messages/status.ts';
import { API_VERSION } from '../../modules/twilio/callback-params.ts';
import { messageSid } from '../../modules/twilio/sids.ts';
import { twilioErrorCode, twilioErrorMessage, twilioStatus } from '../../modules/twilio/statuses.ts';

/** Statuses reached by sending: the first of them in an SMS's history is its date_sent. */
const SENT: ReadonlySet<SmsStatus> = new Set(['sent', 'delivered', 'undelivered', 'failed_delivery']);

export function rfc2822(date: Date | null): string | null {
  return date ? date.toUTCString().replace(/GMT$/, '+0000') : null;
}

export function messagesUri(accountSid: string): string {
  return `/${API_VERSION}/Accounts/${accountSid}/Messages`;
}

export function sentAt(history: { status: SmsStatus; created_at: Date }[]): Date | null {
  return history.find((row) => SENT.has(row.status))?.created_at ?? null;
}

export function presentMessage(accountSid: string, sms: SmsRecord, dateSent: Date | null) {
  const sid = messageSid(sms.id);
  const errorCode = twilioErrorCode(sms.status, sms.reason);
  return {
    sid,
    account_sid: accountSid,
    api_version: API_VERSION,
    messaging_service_sid: null,
    to: sms.phone,
    from: sms.device_id,
    body: sms.message,
    status: twilioStatus(sms.status, sms.reason, sms.send_at),
    direction: 'outbound-api',
    num_segments: String(countSegments(sms.message).segments),
    num_media: '0',
    price: null,
    price_unit: null,
    error_code: errorCode,
    error_message: twilioErrorMessage(errorCode, sms.reason),
    date_created: rfc2822(sms.created_at),
    date_updated: rfc2822(sms.updated_at),
    date_sent: rfc2822(dateSent),
    uri: `${messagesUri(accountSid)}/${sid}.json`,
    subresource_uris: { media: `${messagesUri(accountSid)}/${sid}/Media.json` },
  };
}
