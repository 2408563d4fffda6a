// The send form's errors. Several numbers are sent as one bulk request, whose errors name each
// message by its place in the request, counted from 0 ("messages.1.phone", "message 1: ...");
// the person typed numbers, so a bad one is named by its place counted from 1 and by what was typed.
import { ApiError } from '../../api.ts';
import { formErrors, withoutCode, type FormErrors } from '../../ui/form-errors.ts';

/** The API's field names and the send form's labels. */
export const SEND_LABELS: Record<string, string> = {
  phone: 'Phone numbers',
  message: 'Message',
  device_id: 'Device',
  sim_slot: 'SIM',
  callback_id: 'Webhook',
  send_at: 'Send at',
  valid_until: 'Valid until',
  priority: 'Priority',
};

export function sendFormErrors(error: ApiError | undefined, phones: string[]): FormErrors {
  if (!error || !error.details.some((detail) => /^messages\.\d+/.test(detail.field))) return formErrors(error, SEND_LABELS);
  const details = error.details.map((detail) => {
    const [, index = '0', field = ''] = /^messages\.(\d+)(?:\.(.+))?$/.exec(detail.field) ?? [];
    const text = withoutCode(detail.message.replace(/^message \d+: /, ''));
    if (field !== 'phone') return { field, message: text };
    const place = Number(index);
    // "phone must be ..." is said of the number itself: "Number 2 ("12") must be ..."; any other
    // sentence ("the recipient has opted out") follows a colon.
    const predicate = /^phone\s+/.test(text) ? ` ${text.replace(/^phone\s+/, '')}` : `: ${text}`;
    return { field, message: `Number ${place + 1} ("${phones[place] ?? ''}")${predicate}` };
  });
  const shown = formErrors(new ApiError(error.status, error.code, error.message, details), SEND_LABELS);
  return { notice: `Nothing was sent. ${shown.notice ?? ''}`.trim(), field: (name) => shown.field(name) };
}

