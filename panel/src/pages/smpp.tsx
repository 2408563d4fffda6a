// The account's SMPP credentials, for owners: the system_id and password an ESME (Kannel, an
// aggregator's platform, a CRM) binds with, with its throughput, window and the phones its SMS may
// use (docs/smpp.md). The password is shown once, when the credential is made; revoking one
// unbinds its sessions at once.
import { del, get, post } from '../api.ts';
import { useSession } from '../session.tsx';
import { OnlyFor } from '../ui/only-for.tsx';
import { SelectField, TextField } from '../ui/fields.tsx';
import { formatTime } from '../ui/format.ts';
import { ErrorNotice } from '../ui/notice.tsx';
import { Page } from '../ui/page.tsx';
import { DataTable } from '../ui/data-table.tsx';
import { useLoad } from '../ui/use-load.ts';
import type { Device, SmppCredential, SmppCredentialWithPassword } from '../api/types.ts';
import { ChoiceBoxes } from './admin/choice-boxes.tsx';
import { CreateForm, useCreateForm } from './admin/create-form.tsx';
import { useAction } from '../ui/use-action.ts';

/** More devices than an account pairs in practice; a credential names at most 100. */
const DEVICES_SHOWN = 100;

export function SmppPage() {
  const session = useSession();
  return <OnlyFor allowed={session.canChange} title="SMPP credentials" others="Only owners manage SMPP credentials."><OwnersCredentials /></OnlyFor>;
}

function OwnersCredentials() {
  const list = useLoad(() => get<{ data: SmppCredential[] }>('/smpp/credentials'), []);
  const devices = useLoad(() => get<{ data: Device[] }>('/devices', { limit: DEVICES_SHOWN }), []);
  const deviceName = (id: string) => devices.data?.data.find((device) => device.id === id)?.name ?? id;
  const revoke = useAction(list.reload);
  const confirmRevoke = (credential: SmppCredential) => {
    if (!window.confirm(`Revoke ${credential.system_id}? Its sessions are unbound at once and it cannot bind again.`)) return;
    void revoke.run(() => del(`/smpp/credentials/${credential.id}`));
  };
  return (
    <Page title="SMPP credentials">
      <p class="muted">An ESME binds to the gateway's SMPP port with one of these as its system_id and password (see docs/smpp.md).</p>
      <ErrorNotice error={revoke.error} />
      <DataTable
        list={list}
        empty="No SMPP credentials yet. Create one below."
        rowAttributes={(credential) => ({ 'data-revoked': credential.revoked_at ? 'true' : 'false' })}
        columns={[
          { header: 'system_id', rowHeader: true, cell: (credential) => <code>{credential.system_id}</code> },
          { header: 'Name', cell: (credential) => credential.name || <span class="muted">unnamed</span> },
          { header: 'Phones', cell: (credential) => (credential.device_ids.length === 0 ? <span class="muted">any</span> : credential.device_ids.map(deviceName).join(', ')) },
          { header: 'Per second', numeric: true, cell: (credential) => credential.throughput_per_second },
          { header: 'Window', numeric: true, cell: (credential) => credential.window_size },
          { header: 'Created', class: 'admin-nowrap', cell: (credential) => formatTime(credential.created_at) },
          {
            header: 'State',
            cell: (credential) =>
              credential.revoked_at ? (
                <span class="muted">revoked {formatTime(credential.revoked_at)}</span>
              ) : (
                <button type="button" class="button button-small button-danger" disabled={revoke.busy} aria-label={`Revoke ${credential.system_id}`} onClick={() => confirmRevoke(credential)}>
                  Revoke
                </button>
              ),
          },
        ]}
      />
      <CredentialForm devices={devices.data?.data ?? []} onCreated={list.reload} />
    </Page>
  );
}

const DATA_CODING_0 = [
  { value: 'gsm7', label: 'GSM-7' },
  { value: 'ascii', label: 'ASCII (IA5)' },
  { value: 'latin1', label: 'Latin-1' },
];

function CredentialForm({ devices, onCreated }: { devices: Device[]; onCreated: (created: SmppCredentialWithPassword) => void }) {
  const form = useCreateForm(
    { system_id: '', name: '', device_ids: [] as string[], throughput_per_second: '10', window_size: '10', default_data_coding: 'gsm7' },
    (values) =>
      post<SmppCredentialWithPassword>('/smpp/credentials', {
        ...(values.system_id ? { system_id: values.system_id } : {}),
        ...(values.name ? { name: values.name } : {}),
        device_ids: values.device_ids,
        // Sent as typed: the gateway's answer to "abc" is the error shown beside the field.
        throughput_per_second: numberOrText(values.throughput_per_second),
        window_size: numberOrText(values.window_size),
        default_data_coding: values.default_data_coding,
      }),
    onCreated,
    { system_id: 'system_id', name: 'Name', device_ids: 'Phones', throughput_per_second: 'Messages a second', window_size: 'Window', default_data_coding: 'data_coding 0' },
  );
  const { values, set, error } = form;
  return (
    <CreateForm id="new-smpp-credential" title="New SMPP credential" action="Create credential" form={form} secretLabel="SMPP password" secret={(created) => created.password} secretNote={(created) => <p>For system_id <code>{created.system_id}</code>. Only its hash is stored: it cannot be shown again.</p>}>
      <div class="form-row">
        <TextField label="system_id" name="system_id" autoComplete="off" value={values.system_id} onValue={set('system_id')} hint="1 to 15 letters, digits, dots, underscores or dashes; empty: one is made up." error={error.field('system_id')} />
        <TextField label="Name" name="name" autoComplete="off" value={values.name} onValue={set('name')} hint="What binds with it, so you know which one to revoke." error={error.field('name')} />
      </div>
      <div class="form-row">
        <TextField label="Messages a second" name="throughput_per_second" type="number" inputMode="numeric" value={values.throughput_per_second} onValue={set('throughput_per_second')} hint="1 to 10,000; past it, submit_sm is answered ESME_RTHROTTLED." error={error.field('throughput_per_second')} />
        <TextField label="Window" name="window_size" type="number" inputMode="numeric" value={values.window_size} onValue={set('window_size')} hint="1 to 1,000 PDUs unacknowledged at once." error={error.field('window_size')} />
        <SelectField label="data_coding 0" name="default_data_coding" value={values.default_data_coding} onValue={set('default_data_coding')} options={DATA_CODING_0} hint="The alphabet the ESME's SMSC default means." error={error.field('default_data_coding')} />
      </div>
      {devices.length > 0 && (
        <ChoiceBoxes legend="Phones (none ticked: any of the account's)" choices={devices.map((device) => device.id)} labelOf={(id) => devices.find((device) => device.id === id)?.name ?? id} chosen={values.device_ids} onChosen={set('device_ids')} error={error.field('device_ids')} />
      )}
    </CreateForm>
  );
}

function numberOrText(value: string): number | string {
  return /^\d+$/.test(value) ? Number(value) : value;
}
