// Sending SMS by hand: one text to one or more numbers, through any device or a chosen one, now
// or later. The API checks everything; its messages appear beside the fields they concern. A send
// is confirmed on the form, with links to what was created, and the numbers are cleared so the
// same SMS is not sent twice by a second click.
import { useState } from 'preact/hooks';
import { ApiError } from '../api.ts';
import { href } from '../router.ts';
import { useSession } from '../session.tsx';
import { Field, SelectField, TextField } from '../ui/fields.tsx';
import { ErrorNotice, SuccessNotice } from '../ui/notice.tsx';
import { Page } from '../ui/page.tsx';
import { SegmentCount } from './sms/segment-count.tsx';
import { EMPTY_SEND_FORM, phoneList, sendSms, type SendForm } from './sms/send-request.ts';
import { SimChoice } from './sms/sim-choice.tsx';
import { deviceOptions, useDevices } from './sms/use-devices.ts';
import { sendFormErrors } from './sms/send-errors.ts';
import type { Sms } from '../api/types.ts';
import { useWebhookOptions } from './sms/use-webhooks.ts';

export function SendPage(_props: Record<string, string>) {
  const session = useSession();
  return (
    <Page title="Send SMS" actions={session.canChange && <a href={href('/send/bulk')}>Bulk send from a CSV file</a>}>
      {session.canChange ? <SendSmsForm /> : <p class="notice notice-info">Viewers cannot send SMS.</p>}
    </Page>
  );
}

function SendSmsForm() {
  const { devices, error: devicesError } = useDevices();
  const [form, setForm] = useState<SendForm>(EMPTY_SEND_FORM);
  const [error, setError] = useState<ApiError>();
  const [busy, setBusy] = useState(false);
  const [sent, setSent] = useState<Sms[]>();
  const webhooks = useWebhookOptions('Every webhook with SMS events');
  const set = (field: keyof SendForm) => (value: string) => setForm((previous) => ({ ...previous, [field]: value }));
  const errors = sendFormErrors(error, phoneList(form.phones));
  const fieldError = (field: string) => errors.field(field);
  // A SIM slot belongs to the phone it was picked on: another phone starts at its own default.
  const chooseDevice = (deviceId: string) => setForm((previous) => ({ ...previous, deviceId, simSlot: '' }));
  const recipients = phoneList(form.phones).length;

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    setSent(undefined);
    try {
      setSent(await sendSms(form));
      setForm((previous) => ({ ...previous, phones: '' }));
    } catch (caught) {
      setError(caught instanceof ApiError ? caught : new ApiError(0, 'network', 'The gateway could not be reached.'));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="card sms-send-form" onSubmit={submit} noValidate>
      {sent && <SentNotice sent={sent} />}
      <ErrorNotice error={errors.notice ?? devicesError ?? webhooks.error} />
      <Field label="Message" error={fieldError('message')} hint={<SegmentCount text={form.message} />}>
        {(aria) => <textarea {...aria} name="message" rows={4} value={form.message} onInput={(event) => set('message')(event.currentTarget.value)} />}
      </Field>
      <Field label="Phone numbers" error={fieldError('phone')} hint={`International format such as +491701234567; several separated by commas or new lines.${recipients > 1 ? ` ${recipients} numbers.` : ''}`}>
        {(aria) => (
          <textarea {...aria} name="phones" rows={2} autoComplete="off" value={form.phones} onInput={(event) => set('phones')(event.currentTarget.value)} />
        )}
      </Field>
      <div class="form-row">
        <SelectField label="Device" name="device_id" value={form.deviceId} onValue={chooseDevice} options={deviceOptions(devices, 'Any device')} error={fieldError('device_id')} />
        <SimChoice device={devices.find((device) => device.id === form.deviceId)} value={form.simSlot} onValue={set('simSlot')} error={fieldError('sim_slot')} />
      </div>
      <SelectField
        label="Webhook"
        name="callback_id"
        value={form.callbackId}
        onValue={set('callbackId')}
        options={webhooks.options}
        error={fieldError('callback_id')}
        hint={
          <>
            Which <a href={href('/webhooks')}>webhook</a> gets this SMS's status events (its callback id): one of them alone, or every webhook with SMS events.
          </>
        }
      />
      <fieldset>
        <legend>Delivery (optional)</legend>
        <div class="form-row">
          <TextField label="Send at" type="datetime-local" name="send_at" value={form.sendAt} onValue={set('sendAt')} error={fieldError('send_at')} hint="Not sent before this time." />
          <TextField label="Valid until" type="datetime-local" name="valid_until" value={form.validUntil} onValue={set('validUntil')} error={fieldError('valid_until')} hint="Fails as expired if no phone took it by then." />
          <TextField label="Priority" type="number" name="priority" inputMode="numeric" value={form.priority} onValue={set('priority')} error={fieldError('priority')} hint="Higher goes first; 0 when empty." />
        </div>
      </fieldset>
      <button type="submit" class="button button-primary" disabled={busy}>
        {busy ? 'Sending…' : 'Send SMS'}
      </button>
    </form>
  );
}

/** The confirmation of a send, with the way to what was created. */
function SentNotice({ sent }: { sent: Sms[] }) {
  if (sent.length === 1) {
    const sms = sent[0]!;
    return (
      <SuccessNotice>
        SMS to {sms.phone} created (pending). <a href={href(`/sms/${sms.id}`)}>Follow its status</a>.
      </SuccessNotice>
    );
  }
  return (
    <SuccessNotice>
      Created {sent.length} SMS, one per number. <a href={href('/sms')}>See them in the SMS list</a>.
    </SuccessNotice>
  );
}
