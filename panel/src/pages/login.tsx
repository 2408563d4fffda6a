// Logging in: POST /session sets the session cookie and answers with the CSRF token.
import { useState } from 'preact/hooks';
import { request } from '../api.ts';
import type { SessionView } from '../session.tsx';
import { TextField } from '../ui/fields.tsx';
import { ErrorNotice } from '../ui/notice.tsx';
import { Page } from '../ui/page.tsx';
import { useAction } from '../ui/use-action.ts';

export function LoginPage({ onLoggedIn }: { onLoggedIn: (view: SessionView) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const action = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    const view = await action.run(() => request<SessionView>('POST', '/session', { body: { email, password }, expectUnauthorized: true }));
    if (view) onLoggedIn(view);
  };
  return (
    <main id="main" class="narrow">
      <Page title="Log in">
        <form class="card" onSubmit={submit} noValidate>
          <ErrorNotice error={action.error} />
          <TextField label="Email" type="email" name="email" autoComplete="username" required value={email} onValue={setEmail} />
          <TextField label="Password" type="password" name="password" autoComplete="current-password" required value={password} onValue={setPassword} />
          <button type="submit" class="button button-primary" disabled={action.busy}>
            {action.busy ? 'Logging in…' : 'Log in'}
          </button>
        </form>
      </Page>
    </main>
  );
}
