// Registering a phone: the gateway issues its credentials once; this page shows them with the
// pairing URL as a QR code and as text, and never again (only the token's hash is stored).
import { useState } from 'preact/hooks';
import { ApiError, post } from '../api.ts';
import { href } from '../router.ts';
import { useSession } from '../session.tsx';
import { TextField } from '../ui/fields.tsx';
import { ErrorNotice } from '../ui/notice.tsx';
import { Page } from '../ui/page.tsx';
import { DevicePairing } from './devices/device-pairing.tsx';
import type { IssuedCredentials } from '../api/types.ts';

export function DeviceRegisterPage() {
  const session = useSession();
  const [registration, setRegistration] = useState<IssuedCredentials>();
  if (!session.canChange) {
    return (
      <Page title="Register a device">
        <p>Viewers cannot register devices.</p>
        <p>
          <a href={href('/devices')}>Back to the devices</a>
        </p>
      </Page>
    );
  }
  return (
    <Page title="Register a device">
      {registration ? <Credentials registration={registration} onAnother={() => setRegistration(undefined)} /> : <RegisterForm onRegistered={setRegistration} />}
    </Page>
  );
}

function RegisterForm({ onRegistered }: { onRegistered: (registration: IssuedCredentials) => void }) {
  const [name, setName] = useState('');
  const [error, setError] = useState<ApiError | string>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    setBusy(true);
    try {
      onRegistered(await post<IssuedCredentials>('/devices', { name }));
    } catch (caught) {
      setError(caught instanceof ApiError ? caught : String(caught));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="card narrow-form" onSubmit={submit} noValidate>
      <ErrorNotice error={error} />
      <TextField
        label="Device name"
        name="name"
        autoComplete="off"
        value={name}
        onValue={setName}
        hint="How the panel names the phone until the phone reports its own name."
        error={error instanceof ApiError ? error.forField('name') : undefined}
      />
      <button type="submit" class="button button-primary" disabled={busy}>
        Register device
      </button>
    </form>
  );
}

function Credentials({ registration, onAnother }: { registration: IssuedCredentials; onAnother: () => void }) {
  return (
    <>
      <DevicePairing issued={registration} />
      <p class="page-actions">
        <a class="button button-primary" href={href(`/devices/${registration.device.id}`)}>
          Open the device
        </a>
        <button type="button" class="button" onClick={onAnother}>
          Register another device
        </button>
      </p>
    </>
  );
}
