// The panel's root: asks GET /session who is logged in, then shows the login form, the forced
// password change, or the page the hash names inside the layout. It holds the panel's one live
// event stream, open while a user who may use the API is logged in.
import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import { ApiError, del, request, useCsrfToken, whenSessionLost } from './api.ts';
import { LiveConnection } from './live/connection.ts';
import { LiveContext } from './live/use-live-events.ts';
import { ChangePasswordPage } from './pages/change-password.tsx';
import { LoginPage } from './pages/login.tsx';
import { match, useRoute } from './router.ts';
import { ROUTES } from './routes.tsx';
import { SessionContext, type Session, type SessionView } from './session.tsx';
import { Layout } from './ui/layout.tsx';
import { ErrorNotice } from './ui/notice.tsx';
import { Page } from './ui/page.tsx';

type State = { kind: 'checking' } | { kind: 'anonymous'; notice?: string } | { kind: 'unreachable'; error: ApiError } | { kind: 'in'; view: SessionView };

export function App() {
  const [state, setState] = useState<State>({ kind: 'checking' });
  const route = useRoute();
  const [live] = useState(() => new LiveConnection());
  // The gateway refuses the API, the stream included, until a forced password change is done.
  const streaming = state.kind === 'in' && !state.view.user.must_change_password;
  useEffect(() => {
    if (!streaming) return;
    live.open();
    return () => live.close();
  }, [streaming, live]);

  const enter = useCallback((view: SessionView) => {
    useCsrfToken(view.csrf_token);
    setState({ kind: 'in', view });
  }, []);
  const check = useCallback(async () => {
    try {
      // Asked first, answered 200 either way: a browser logs a 401 in its console as an error, and
      // someone who has not logged in yet is none.
      const status = await request<{ signed_in: boolean }>('GET', '/session/status');
      if (!status.signed_in) return setState({ kind: 'anonymous' });
      enter(await request<SessionView>('GET', '/session', { expectUnauthorized: true }));
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) setState({ kind: 'anonymous' });
      else setState({ kind: 'unreachable', error: error instanceof ApiError ? error : new ApiError(0, 'network', String(error)) });
    }
  }, [enter]);

  useEffect(() => {
    whenSessionLost(() => {
      useCsrfToken(undefined);
      setState({ kind: 'anonymous', notice: 'Your session ended. Log in again.' });
    });
    void check();
  }, [check]);

  const session = useMemo<Session | null>(() => {
    if (state.kind !== 'in') return null;
    return {
      user: state.view.user,
      canChange: state.view.user.role === 'owner',
      refresh: check,
      logout: async () => {
        // Logged out either way: a session the gateway already ended is gone too.
        await del('/session').catch(() => undefined);
        useCsrfToken(undefined);
        setState({ kind: 'anonymous', notice: 'You are logged out.' });
      },
    };
  }, [state, check]);

  if (state.kind === 'checking') return <p class="boot">Loading the control panel…</p>;
  if (state.kind === 'unreachable') {
    return (
      <main id="main" class="narrow">
        <Page title="Gateway unreachable">
          <ErrorNotice error={state.error} />
          <button type="button" class="button" onClick={() => void check()}>
            Try again
          </button>
        </Page>
      </main>
    );
  }
  if (state.kind === 'anonymous' || !session) {
    return (
      <>
        {state.kind === 'anonymous' && state.notice && (
          <p class="notice notice-info" role="status">
            {state.notice}
          </p>
        )}
        <LoginPage onLoggedIn={enter} />
      </>
    );
  }
  return (
    <SessionContext.Provider value={session}>
      <LiveContext.Provider value={live}>
        <Layout path={route.path}>{session.user.must_change_password ? <ChangePasswordPage /> : <RoutedPage path={route.path} />}</Layout>
      </LiveContext.Provider>
    </SessionContext.Provider>
  );
}

function RoutedPage({ path }: { path: string }) {
  for (const [pattern, Component] of ROUTES) {
    const params = match(pattern, path);
    if (params) return <Component key={path} {...params} />;
  }
  return (
    <Page title="Not found">
      <p>
        Nothing lives at this address. <a href="#/">Back to the dashboard</a>.
      </p>
    </Page>
  );
}
