// Registering a phone: the gateway issues its credentials once; this page shows them with the
// pairing URL as a QR code and as text, and never again (only the token's hash is stored).
import { useState } from 'preact/hooks';
import { post } from '../api.ts';
import { href } from '../router.ts';
import { useSession } from '../session.tsx';
import { TextField } from '../ui/fields.tsx';
import { ErrorNotice } from '../ui/notice.tsx';
import { Page, PrimaryLink } from '../ui/page.tsx';
import { useAction } from '../ui/use-action.ts';
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
  const action = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    const registration = await action.run(() => post<IssuedCredentials>('/devices', { name }));
    if (registration) onRegistered(registration);
  };
  return (
    <form class="card narrow-form" onSubmit={submit} noValidate>
      <ErrorNotice error={action.error} />
      <TextField
        label="Device name"
        name="name"
        autoComplete="off"
        value={name}
        onValue={setName}
        hint="How the panel names the phone until the phone reports its own name."
        error={action.error?.forField('name')}
      />
      <button type="submit" class="button button-primary" disabled={action.busy}>
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
        <PrimaryLink to={`/devices/${registration.device.id}`}>Open the device</PrimaryLink>
        <button type="button" class="button" onClick={onAnother}>
          Register another device
        </button>
      </p>
    </>
  );
}
