// Logging in: POST /session sets the session cookie and answers with the CSRF token.
import { useState } from 'preact/hooks';
import { ApiError, request } from '../api.ts';
import type { SessionView } from '../session.tsx';
import { TextField } from '../ui/fields.tsx';
import { ErrorNotice } from '../ui/notice.tsx';
import { Page } from '../ui/page.tsx';

export function LoginPage({ onLoggedIn }: { onLoggedIn: (view: SessionView) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<ApiError>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      onLoggedIn(await request<SessionView>('POST', '/session', { body: { email, password }, expectUnauthorized: true }));
    } catch (caught) {
      setError(caught instanceof ApiError ? caught : new ApiError(0, 'network', 'The gateway could not be reached.'));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" class="narrow">
      <Page title="Log in">
        <form class="card" onSubmit={submit} noValidate>
          <ErrorNotice error={error} />
          <TextField label="Email" type="email" name="email" autoComplete="username" required value={email} onValue={setEmail} />
          <TextField label="Password" type="password" name="password" autoComplete="current-password" required value={password} onValue={setPassword} />
          <button type="submit" class="button button-primary" disabled={busy}>
            {busy ? 'Logging in…' : 'Log in'}
          </button>
        </form>
      </Page>
    </main>
  );
}
