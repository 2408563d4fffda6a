// The account's Twilio credentials, for owners: the AccountSid and auth token that code written
// for Twilio uses against the gateway (docs/twilio.md). A token is shown once, when the
// credential is made or rotated; the list never has it.
import { useState } from 'preact/hooks';
import { del, get, post } from '../api.ts';
import { useSession } from '../session.tsx';
import { OnlyFor } from '../ui/only-for.tsx';
import { TextField } from '../ui/fields.tsx';
import { formatTime } from '../ui/format.ts';
import { ErrorNotice, ShownOnce } from '../ui/notice.tsx';
import { Page } from '../ui/page.tsx';
import { DataTable } from '../ui/data-table.tsx';
import { useLoad } from '../ui/use-load.ts';
import type { TwilioCredential, TwilioCredentialWithToken } from '../api/types.ts';
import { useAction } from '../ui/use-action.ts';
import { CreateForm, useCreateForm } from './admin/create-form.tsx';

export function TwilioPage() {
  const session = useSession();
  return <OnlyFor allowed={session.canChange} title="Twilio credentials" others="Only owners manage Twilio credentials."><OwnersCredentials /></OnlyFor>;
}

function OwnersCredentials() {
  const list = useLoad(() => get<{ data: TwilioCredential[] }>('/twilio/credentials'), []);
  const change = useAction(list.reload);
  const [shown, setShown] = useState<TwilioCredentialWithToken>();
  const rotate = async (credential: TwilioCredential) => {
    if (!window.confirm(`Give ${credential.account_sid} a new auth token? The current one stops working at once.`)) return;
    const rotated = await change.run(() => post<TwilioCredentialWithToken>(`/twilio/credentials/${credential.account_sid}/rotate`));
    if (rotated) setShown(rotated);
  };
  const remove = (credential: TwilioCredential) => {
    if (!window.confirm(`Delete ${credential.account_sid}? Code using it stops working at once.`)) return;
    void change.run(() => del(`/twilio/credentials/${credential.account_sid}`));
  };
  return (
    <Page title="Twilio credentials">
      <p class="muted">
        Code written for Twilio sends through the gateway with one of these as its AccountSid and auth token (see docs/twilio.md).
      </p>
      {shown && (
        <ShownOnce label="Auth token" value={shown.auth_token}>
          <p>
            For AccountSid <code>{shown.account_sid}</code>. It is stored encrypted and cannot be shown again.
          </p>
        </ShownOnce>
      )}
      <ErrorNotice error={change.error} />
      <DataTable
        list={list}
        rowKey={(credential) => credential.account_sid}
        empty="No Twilio credentials yet. Create one below."
        columns={[
          { header: 'Name', rowHeader: true, cell: (credential) => credential.friendly_name || <span class="muted">unnamed</span> },
          { header: 'AccountSid', cell: (credential) => <code>{credential.account_sid}</code> },
          { header: 'Incoming SMS to', cell: (credential) => credential.sms_url ?? <span class="muted">none</span> },
          { header: 'Created', class: 'admin-nowrap', cell: (credential) => formatTime(credential.created_at) },
          {
            header: 'Actions',
            cell: (credential) => (
              <span class="admin-row-actions">
                <button type="button" class="button button-small" disabled={change.busy} aria-label={`New auth token for ${credential.account_sid}`} onClick={() => void rotate(credential)}>
                  New token
                </button>
                <button type="button" class="button button-small button-danger" disabled={change.busy} aria-label={`Delete ${credential.account_sid}`} onClick={() => remove(credential)}>
                  Delete
                </button>
              </span>
            ),
          },
        ]}
      />
      <CredentialForm
        onCreated={(created) => {
          setShown(created);
          list.reload();
        }}
      />
    </Page>
  );
}

function CredentialForm({ onCreated }: { onCreated: (created: TwilioCredentialWithToken) => void }) {
  const form = useCreateForm(
    { friendly_name: '', sms_url: '' },
    ({ friendly_name, sms_url }) => post<TwilioCredentialWithToken>('/twilio/credentials', { ...(friendly_name ? { friendly_name } : {}), ...(sms_url ? { sms_url } : {}) }),
    onCreated,
    { friendly_name: 'Name', sms_url: 'Incoming SMS URL' },
  );
  const { values, set, error } = form;
  return (
    <CreateForm id="new-twilio-credential" title="New Twilio credential" action="Create credential" form={form}>
      <TextField label="Name" name="friendly_name" value={values.friendly_name} onValue={set('friendly_name')} hint="Where it is used, so you know which one to delete." error={error.field('friendly_name')} />
      <TextField
        label="Incoming SMS URL"
        name="sms_url"
        type="url"
        value={values.sms_url}
        onValue={set('sms_url')}
        hint="Optional: incoming SMS are POSTed here as Twilio posts them; a TwiML <Message> answer is sent back."
        error={error.field('sms_url')}
      />
    </CreateForm>
  );
}
