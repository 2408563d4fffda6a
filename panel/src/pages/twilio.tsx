// The account's Twilio credentials, for owners: the AccountSid and auth token that code written
// for Twilio uses against the gateway (docs/twilio.md). A token is shown once, when the
// credential is made or rotated; the list never has it.
import { useState } from 'preact/hooks';
import { del, get, post } from '../api.ts';
import { useSession } from '../session.tsx';
import { OnlyFor } from '../ui/only-for.tsx';
import { TextField } from '../ui/fields.tsx';
import { formatTime } from '../ui/format.ts';
import { formErrors } from '../ui/form-errors.ts';
import { ErrorNotice, ShownOnce } from '../ui/notice.tsx';
import { Empty, Loading, Page } from '../ui/page.tsx';
import { useLoad } from '../ui/use-load.ts';
import type { TwilioCredential, TwilioCredentialWithToken } from '../api/types.ts';
import { useAction } from './admin/use-action.ts';

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
      <Loading data={list.data} error={list.error}>
        {({ data }) =>
          data.length === 0 ? (
            <Empty>No Twilio credentials yet. Create one below.</Empty>
          ) : (
            <div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">AccountSid</th>
                    <th scope="col">Incoming SMS to</th>
                    <th scope="col">Created</th>
                    <th scope="col">Actions</th>
                  </tr>
                </thead>
                <tbody>
                  {data.map((credential) => (
                    <tr key={credential.account_sid}>
                      <td>{credential.friendly_name || <span class="muted">unnamed</span>}</td>
                      <td>
                        <code>{credential.account_sid}</code>
                      </td>
                      <td>{credential.sms_url ?? <span class="muted">none</span>}</td>
                      <td class="admin-nowrap">{formatTime(credential.created_at)}</td>
                      <td>
                        <span class="admin-row-actions">
                          <button type="button" class="button button-small" disabled={change.busy} aria-label={`New auth token for ${credential.account_sid}`} onClick={() => void rotate(credential)}>
                            New token
                          </button>
                          <button type="button" class="button button-small button-danger" disabled={change.busy} aria-label={`Delete ${credential.account_sid}`} onClick={() => remove(credential)}>
                            Delete
                          </button>
                        </span>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </Loading>
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
  const [name, setName] = useState('');
  const [smsUrl, setSmsUrl] = useState('');
  const action = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    const created = await action.run(() => post<TwilioCredentialWithToken>('/twilio/credentials', { ...(name ? { friendly_name: name } : {}), ...(smsUrl ? { sms_url: smsUrl } : {}) }));
    if (!created) return;
    setName('');
    setSmsUrl('');
    onCreated(created);
  };
  const error = formErrors(action.error, { friendly_name: 'Name', sms_url: 'Incoming SMS URL' });
  return (
    <form class="card admin-form" onSubmit={submit} noValidate aria-labelledby="new-twilio-credential">
      <h2 id="new-twilio-credential">New Twilio credential</h2>
      <ErrorNotice error={error.notice} />
      <TextField label="Name" name="friendly_name" value={name} onValue={setName} hint="Where it is used, so you know which one to delete." error={error.field('friendly_name')} />
      <TextField
        label="Incoming SMS URL"
        name="sms_url"
        type="url"
        value={smsUrl}
        onValue={setSmsUrl}
        hint="Optional: incoming SMS are POSTed here as Twilio posts them; a TwiML <Message> answer is sent back."
        error={error.field('sms_url')}
      />
      <button type="submit" class="button button-primary" disabled={action.busy}>
        Create credential
      </button>
    </form>
  );
}
