// The frame around every page once logged in: a skip link, the navigation (a menu button on a
// phone-sized screen), who is logged in, and logout.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { useSession } from '../session.tsx';

interface NavItem {
  href: string;
  label: string;
  /** Shown only when this says so. */
  when?: (session: ReturnType<typeof useSession>) => boolean;
}

const NAV: NavItem[] = [
  { href: '#/', label: 'Dashboard' },
  { href: '#/sms', label: 'SMS' },
  // Viewers read; sending is a change the API refuses them.
  { href: '#/send', label: 'Send', when: (session) => session.canChange },
  { href: '#/devices', label: 'Devices' },
  { href: '#/fleet', label: 'Fleet' },
  { href: '#/inbox', label: 'Inbox' },
  { href: '#/contacts', label: 'Contacts' },
  { href: '#/incoming', label: 'Incoming' },
  { href: '#/calls', label: 'Calls' },
  { href: '#/opt-out', label: 'Opt-out' },
  { href: '#/retention', label: 'Retention' },
  { href: '#/inbound-rules', label: 'Rules' },
  { href: '#/webhooks', label: 'Webhooks' },
  { href: '#/upstreams', label: 'Upstreams' },
  { href: '#/keys', label: 'API keys', when: (session) => session.canChange },
  { href: '#/twilio', label: 'Twilio', when: (session) => session.canChange },
  { href: '#/smpp', label: 'SMPP', when: (session) => session.canChange },
  { href: '#/users', label: 'Users', when: (session) => session.canChange },
  { href: '#/accounts', label: 'Accounts', when: (session) => session.user.is_admin },
];

/** The API reference the gateway serves beside the panel (a page of its own, outside the panel's routes). */
const API_DOCS = { href: '/docs', label: 'API docs' };

export function Layout({ path, children }: { path: string; children: ComponentChildren }) {
  const session = useSession();
  const [menuOpen, setMenuOpen] = useState(false);
  // Until a one-time password is replaced the gateway refuses every other page, so none is offered.
  const navigable = !session.user.must_change_password;
  const active = (href: string) => {
    const target = href.slice(1);
    return target === '/' ? path === '/' : path === target || path.startsWith(`${target}/`);
  };
  return (
    <>
      <a class="skip-link" href="#main" onClick={(event) => (event.preventDefault(), document.getElementById('main')?.focus())}>
        Skip to content
      </a>
      <header class="topbar">
        <a class="brand" href="#/">
          SMS gateway
        </a>
        {navigable && (
          <>
            <button type="button" class="button menu-button" aria-expanded={menuOpen} aria-controls="main-nav" onClick={() => setMenuOpen(!menuOpen)}>
              Menu
            </button>
            <nav id="main-nav" class={`main-nav${menuOpen ? ' open' : ''}`} aria-label="Main">
              <ul>
                {NAV.filter((item) => !item.when || item.when(session)).map((item) => (
                  <li key={item.href}>
                    <a href={item.href} aria-current={active(item.href) ? 'page' : undefined} onClick={() => setMenuOpen(false)}>
                      {item.label}
                    </a>
                  </li>
                ))}
                <li>
                  <a href={API_DOCS.href}>
                    {API_DOCS.label}
                  </a>
                </li>
              </ul>
            </nav>
          </>
        )}
        <div class="whoami">
          <span title={session.user.email}>
            {session.user.email} <span class="muted">({session.user.role}{session.user.is_admin ? ', admin' : ''})</span>
          </span>
          <button type="button" class="button button-small" onClick={() => void session.logout()}>
            Log out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </>
  );
}
