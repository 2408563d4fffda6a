// Registering a phone: the gateway issues its credentials once; this page shows them with a QR
// code the phone app scans, and never again (only the token's hash is stored).
import { useState } from 'preact/hooks';
import { ApiError, post } from '../api.ts';
import { href } from '../router.ts';
import { useSession } from '../session.tsx';
import { TextField } from '../ui/fields.tsx';
import { CopyButton, ErrorNotice, ShownOnce } from '../ui/notice.tsx';
import { Page } from '../ui/page.tsx';
import { connectionPayload, defaultBrokerAddress } from './devices/connection-payload.ts';
import { ConnectionQr } from './devices/connection-qr.tsx';
import type { DeviceRegistration } from './devices/device-types.ts';

export function DeviceRegisterPage() {
  const session = useSession();
  const [registration, setRegistration] = useState<DeviceRegistration>();
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

function RegisterForm({ onRegistered }: { onRegistered: (registration: DeviceRegistration) => void }) {
  const [name, setName] = useState('');
  const [error, setError] = useState<ApiError | string>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    setBusy(true);
    try {
      onRegistered(await post<DeviceRegistration>('/devices', { name }));
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

function Credentials({ registration, onAnother }: { registration: DeviceRegistration; onAnother: () => void }) {
  const { device, credentials } = registration;
  const [broker, setBroker] = useState(() => defaultBrokerAddress(registration.broker.mqtt_port));
  return (
    <>
      <ShownOnce label="Device token" value={credentials.password}>
        <p>The phone authenticates with it; the gateway keeps only its hash and cannot show it again.</p>
      </ShownOnce>
      <div class="device-connect">
        <div class="card">
          <h2 class="card-heading">Credentials for {device.name_custom}</h2>
          <dl class="facts">
            <dt>Device id</dt>
            <dd class="secret-row">
              <code data-testid="device-id">{device.id}</code>
              <CopyButton value={device.id} label="Copy device id" />
            </dd>
            <dt>MQTT client id</dt>
            <dd>
              <code>{credentials.client_id}</code>
            </dd>
            <dt>MQTT username</dt>
            <dd>
              <code>{credentials.username}</code>
            </dd>
            <dt>MQTT password</dt>
            <dd>the device token above</dd>
          </dl>
          <TextField
            label="Broker address"
            name="broker"
            autoComplete="off"
            value={broker}
            onValue={setBroker}
            hint="Where phones reach the gateway's MQTT broker: this page's host and the port the broker listens on, unless you change it. The QR code follows."
          />
        </div>
        <div class="card device-qr-card">
          <h2 class="card-heading">Scan with the phone app</h2>
          <ConnectionQr payload={connectionPayload(broker, device.id, credentials.password)} />
          <p class="hint">It holds the broker address, the device id and the token.</p>
        </div>
      </div>
      <p class="page-actions">
        <a class="button button-primary" href={href(`/devices/${device.id}`)}>
          Open the device
        </a>
        <button type="button" class="button" onClick={onAnother}>
          Register another device
        </button>
      </p>
    </>
  );
}
