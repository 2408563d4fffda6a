// The form that adds an upstream or changes one: the fields change with its kind (an SMSC over
// SMPP, or a service speaking Twilio's Messages API). The secret is a password input that starts
// empty and is never filled from the gateway; left empty on an edit, the gateway keeps the one it
// holds. The gateway judges every value and its messages show beside the fields.
import { ApiError } from '../../api.ts';
import { CheckboxField, Field, SelectField, TextField } from '../../ui/fields.tsx';
import type { CreateFormState } from '../admin/create-form.tsx';
import type { UpstreamKind } from './types.ts';
import type { UpstreamValues } from './upstream-values.ts';

export const UPSTREAM_LABELS: Record<string, string> = {
  name: 'Name',
  kind: 'Kind',
  enabled: 'Enabled',
  price_per_segment: 'Price per segment',
  monthly_budget: 'Monthly budget',
  prefix_prices: 'Prices by prefix',
  throughput_per_second: 'Messages a second',
  host: 'SMSC host',
  port: 'SMSC port',
  tls: 'TLS',
  system_id: 'system_id',
  system_type: 'system_type',
  bind_mode: 'Bind',
  source_addr: 'Sender (source_addr)',
  window_size: 'Window',
  enquire_link_seconds: 'enquire_link every (seconds)',
  password: 'SMPP password',
  base_url: 'API root URL',
  account_sid: 'Account SID',
  from: 'From',
  messaging_service_sid: 'Messaging service SID',
  max_concurrent: 'Requests at once',
  auth_token: 'Auth token',
};

export const KINDS: { value: UpstreamKind; label: string }[] = [
  { value: 'smpp', label: 'SMPP (an SMSC)' },
  { value: 'twilio', label: 'Twilio-compatible HTTP API' },
];

const BIND_MODES = [
  { value: 'transceiver', label: 'One transceiver bind' },
  { value: 'transmitter_receiver', label: 'A transmitter and a receiver' },
];

/**
 * The API names a price's line as prefix_prices.2.price: said as "line 3" beside the one field
 * that holds every line, so no message is left above the form for want of a field.
 */
export function withPrefixLines(error: ApiError | undefined): ApiError | undefined {
  if (!error) return error;
  const details = error.details.map((detail) => {
    const line = /(?:^|\.)prefix_prices\.(\d+)(?:\.(\w+))?$/.exec(detail.field);
    if (!line) return detail;
    const message = detail.message.replace(/^(?:body\.)?prefix_prices\.\d+\.?/, '');
    return { field: 'prefix_prices', message: `line ${Number(line[1]) + 1}: ${message || 'not a prefix and a price'}` };
  });
  return new ApiError(error.status, error.code, error.message, details);
}

type Form = Pick<CreateFormState<UpstreamValues>, 'values' | 'set' | 'error'>;

export function UpstreamFields({ form, editing }: { form: Form; editing: boolean }) {
  const { values, set, error } = form;
  const text = (field: keyof UpstreamValues & string) => ({
    label: UPSTREAM_LABELS[field]!,
    name: field,
    autoComplete: 'off',
    value: values[field] as string,
    onValue: set(field) as (value: string) => void,
    error: error.field(field),
  });
  const number = (field: keyof UpstreamValues & string) => ({ ...text(field), type: 'number', inputMode: 'decimal' as const });
  const secretHint = editing ? 'Kept encrypted and never shown. Leave empty to keep the current one.' : 'Kept encrypted and never shown again.';
  return (
    <>
      <div class="form-row">
        <TextField {...text('name')} hint="Unique in the account; the routes name it." />
        {editing ? (
          <Field label={UPSTREAM_LABELS.kind!}>{(aria) => <input {...aria} name="kind" value={KINDS.find((kind) => kind.value === values.kind)!.label} readOnly />}</Field>
        ) : (
          <SelectField label={UPSTREAM_LABELS.kind!} name="kind" value={values.kind} onValue={(kind) => set('kind')(kind as UpstreamKind)} options={KINDS} error={error.field('kind')} />
        )}
      </div>
      {values.kind === 'smpp' ? (
        <fieldset>
          <legend>SMSC</legend>
          <div class="form-row">
            <TextField {...text('host')} hint="Its host name or address." />
            <TextField {...number('port')} inputMode="numeric" hint="Often 2775." />
          </div>
          <CheckboxField label="Connect over TLS (the certificate is checked)" name="tls" checked={values.tls} onChecked={set('tls')} />
          <div class="form-row">
            <TextField {...text('system_id')} />
            <TextField {...text('password')} type="password" autoComplete="new-password" hint={secretHint} />
          </div>
          <div class="form-row">
            <TextField {...text('system_type')} hint="Empty unless the SMSC asks for one." />
            <SelectField label={UPSTREAM_LABELS.bind_mode!} name="bind_mode" value={values.bind_mode} onValue={(mode) => set('bind_mode')(mode as UpstreamValues['bind_mode'])} options={BIND_MODES} error={error.field('bind_mode')} />
            <TextField {...text('source_addr')} hint="A number or a name; empty: the SMSC decides." />
          </div>
          <div class="form-row">
            <TextField {...number('throughput_per_second')} inputMode="numeric" hint="At most; empty: 50." />
            <TextField {...number('window_size')} inputMode="numeric" hint="submit_sm awaiting an answer at once; empty: 10." />
            <TextField {...number('enquire_link_seconds')} inputMode="numeric" hint="Empty: 30." />
          </div>
        </fieldset>
      ) : (
        <fieldset>
          <legend>Twilio-compatible API</legend>
          <div class="form-row">
            <TextField {...text('base_url')} type="url" hint="Its root, e.g. https://api.twilio.com, or another gateway's address." />
            <TextField {...text('account_sid')} />
            <TextField {...text('auth_token')} type="password" autoComplete="new-password" hint={secretHint} />
          </div>
          <div class="form-row">
            <TextField {...text('from')} hint="The sender; this or a messaging service." />
            <TextField {...text('messaging_service_sid')} hint="Picks the sender; this or From." />
          </div>
          <div class="form-row">
            <TextField {...number('max_concurrent')} inputMode="numeric" hint="Requests in flight; empty: 10." />
            <TextField {...number('throughput_per_second')} inputMode="numeric" hint="At most; empty: 50." />
          </div>
        </fieldset>
      )}
      <fieldset>
        <legend>Costs</legend>
        <div class="form-row">
          <TextField {...number('price_per_segment')} hint="In the account's own currency; empty: no price." />
          <TextField {...number('monthly_budget')} hint="Past it the routes skip this upstream until the month (UTC) ends; empty: none." />
        </div>
        <Field label={UPSTREAM_LABELS.prefix_prices!} error={error.field('prefix_prices')} hint='One a line, a prefix and its price: "+44 0.035". The longest prefix that matches wins over the price per segment.'>
          {(aria) => <textarea {...aria} name="prefix_prices" rows={3} value={values.prefix_prices} onInput={(event) => set('prefix_prices')(event.currentTarget.value)} />}
        </Field>
      </fieldset>
      <CheckboxField label="Enabled" name="enabled" checked={values.enabled} onChecked={set('enabled')} hint="A disabled upstream is skipped by the routes and holds no connection." />
    </>
  );
}
