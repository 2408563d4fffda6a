// Sending SMS by hand: one text to one or more numbers, through any device or a chosen one, now
// or later. The API checks everything; its messages appear beside the fields they concern.
import { useState } from 'preact/hooks';
import { ApiError } from '../api.ts';
import { href, navigate } from '../router.ts';
import { useSession } from '../session.tsx';
import { Field, SelectField, TextField } from '../ui/fields.tsx';
import { ErrorNotice } from '../ui/notice.tsx';
import { Page } from '../ui/page.tsx';
import { SegmentCount } from './sms/segment-count.tsx';
import { EMPTY_SEND_FORM, phoneList, sendSms, type SendForm } from './sms/send-request.ts';
import { SimChoice } from './sms/sim-choice.tsx';
import { deviceOptions, useDevices } from './sms/use-devices.ts';

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
  const set = (field: keyof SendForm) => (value: string) => setForm((previous) => ({ ...previous, [field]: value }));
  const fieldError = (field: string) => error?.forField(field);
  // A SIM slot belongs to the phone it was picked on: another phone starts at its own default.
  const chooseDevice = (deviceId: string) => setForm((previous) => ({ ...previous, deviceId, simSlot: '' }));
  const recipients = phoneList(form.phones).length;

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const created = await sendSms(form);
      navigate(created.length === 1 ? `/sms/${created[0]!.id}` : '/sms');
    } catch (caught) {
      setError(caught instanceof ApiError ? caught : new ApiError(0, 'network', 'The gateway could not be reached.'));
      setBusy(false);
    }
  };

  return (
    <form class="card sms-send-form" onSubmit={submit} noValidate>
      <ErrorNotice error={error ?? devicesError} />
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
      <TextField
        label="Callback id"
        name="callback_id"
        autoComplete="off"
        value={form.callbackId}
        onValue={set('callbackId')}
        error={fieldError('callback_id')}
        hint={
          <>
            Optional: the id of one <a href={href('/webhooks')}>webhook</a>; only it gets this SMS's events. Empty: every webhook with SMS events.
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
