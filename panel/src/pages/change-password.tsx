// Changing the password; required before anything else after a one-time password.
import { useState } from 'preact/hooks';
import { post } from '../api.ts';
import { useSession } from '../session.tsx';
import { TextField } from '../ui/fields.tsx';
import { ErrorNotice, SuccessNotice } from '../ui/notice.tsx';
import { Page } from '../ui/page.tsx';
import { formErrors } from '../ui/form-errors.ts';
import { useAction } from '../ui/use-action.ts';

const LABELS = { current_password: 'Current password', new_password: 'New password' };

const MIN_LENGTH = 12;

export function ChangePasswordPage() {
  const session = useSession();
  const forced = session.user.must_change_password;
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const [mismatch, setMismatch] = useState(false);
  const [done, setDone] = useState(false);
  const action = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    // Checked here: the API takes the new password once and cannot tell a typo in it.
    const differ = next !== repeat;
    setMismatch(differ);
    if (differ) return action.clear();
    await action.run(async () => {
      await post('/session/password', { current_password: current, new_password: next });
      setDone(true);
      setCurrent('');
      setNext('');
      setRepeat('');
      await session.refresh();
    });
  };
  const errors = formErrors(mismatch ? 'The two new passwords differ.' : action.error, LABELS);
  const fieldError = (field: string) => errors.field(field);
  return (
    <Page title={forced ? 'Choose your password' : 'Change password'}>
      {forced && <p>You logged in with a one-time password. Choose your own to continue.</p>}
      {done && <SuccessNotice>Your password is changed.</SuccessNotice>}
      <form class="card narrow" onSubmit={submit} noValidate>
        <ErrorNotice error={errors.notice} />
        <TextField label="Current password" type="password" name="current_password" autoComplete="current-password" value={current} onValue={setCurrent} error={fieldError('current_password')} />
        <TextField
          label="New password"
          type="password"
          name="new_password"
          autoComplete="new-password"
          value={next}
          onValue={setNext}
          hint={`At least ${MIN_LENGTH} characters.`}
          error={fieldError('new_password')}
        />
        <TextField label="New password again" type="password" name="repeat_password" autoComplete="new-password" value={repeat} onValue={setRepeat} />
        <button type="submit" class="button button-primary">
          Change password
        </button>
      </form>
    </Page>
  );
}
