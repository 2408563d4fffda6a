// One device: what it reports, its queue and limits, its settings; owners may give it a new
// token or delete it.
// Presence and the statuses of its SMS keep the page current.
import { useState } from 'preact/hooks';
import { del, get, post } from '../api.ts';
import { useLiveEvents } from '../live/use-live-events.ts';
import { href, navigate } from '../router.ts';
import { useSession } from '../session.tsx';
import { ErrorNotice } from '../ui/notice.tsx';
import { Loading, Page } from '../ui/page.tsx';
import { Card } from '../ui/card.tsx';
import { useAction } from '../ui/use-action.ts';
import { useLoad } from '../ui/use-load.ts';
import { useThrottled } from '../ui/use-throttled.ts';
import { DeviceFacts } from './devices/device-facts.tsx';
import { DeviceHealthCard } from './devices/device-health.tsx';
import { DevicePairing } from './devices/device-pairing.tsx';
import type { DeviceDetail, IssuedCredentials } from '../api/types.ts';
import { SettingsForm } from './devices/settings-form.tsx';
import { UssdConsole } from './devices/ussd-console.tsx';

/** SMS statuses move the queue; reloading on each would hammer the API during a bulk send. */
const QUEUE_RELOAD_MS = 2000;

export function DeviceDetailPage({ id }: { id: string }) {
  const session = useSession();
  const device = useLoad(() => get<DeviceDetail>(`/devices/${encodeURIComponent(id)}`), [id]);
  const [offlineSince, setOfflineSince] = useState<string>();
  const reloadQueue = useThrottled(device.reload, QUEUE_RELOAD_MS);
  useLiveEvents(
    {
      'device.presence': (event) => {
        if (event.id !== id) return;
        setOfflineSince(event.online ? undefined : event.at);
        device.reload();
      },
      'sms.status': (event) => event.device_id === id && reloadQueue(),
    },
    device.reload,
  );

  return (
    <Page title={device.data?.name_custom ?? 'Device'} actions={<a href={href('/devices')}>All devices</a>}>
      <Loading data={device.data} error={device.error}>
        {(loaded) => (
          <>
            <DeviceFacts device={loaded} offlineSince={offlineSince} />
            <DeviceHealthCard key={loaded.id} deviceId={loaded.id} canChange={session.canChange} />
            <SettingsForm key={loaded.id} device={loaded} canChange={session.canChange} onSaved={device.reload} />
            {/* A phone that says it dials no USSD for the gateway (a modem) would only be refused: no console for it. */}
            {session.canChange && loaded.capabilities?.ussd !== false && <UssdConsole key={loaded.id} device={loaded} />}
            {session.canChange && <NewToken device={loaded} />}
            {session.canChange && <DeleteDevice device={loaded} />}
          </>
        )}
      </Loading>
    </Page>
  );
}

/**
 * A new token for a phone whose token is lost or leaked. The gateway closes the connection made
 * with the old one; the new credentials are shown here once, as at registration.
 */
function NewToken({ device }: { device: DeviceDetail }) {
  const action = useAction();
  const [issued, setIssued] = useState<IssuedCredentials>();
  const issue = async () => {
    if (!window.confirm(`Issue a new token for ${device.name_custom}? The old token stops working at once: the phone using it is disconnected, and connects again only once it is paired with the new one.`)) return;
    const credentials = await action.run(() => post<IssuedCredentials>(`/devices/${encodeURIComponent(device.id)}/token`));
    if (credentials) setIssued(credentials);
  };
  return (
    <Card title="Token">
      <ErrorNotice error={action.error} />
      {issued ? (
        <>
          <DevicePairing issued={issued} />
          <p class="page-actions">
            <button type="button" class="button" onClick={() => setIssued(undefined)}>
              Done: hide the new token
            </button>
          </p>
        </>
      ) : (
        <>
          <p>
            Lost the phone's token, or shared it by mistake? A new token replaces it: the phone using the old one is disconnected, and you pair
            the device again with the new pairing URL.
          </p>
          <button type="button" class="button" onClick={issue} disabled={action.busy}>
            New token
          </button>
        </>
      )}
    </Card>
  );
}

function DeleteDevice({ device }: { device: DeviceDetail }) {
  const action = useAction();
  const remove = async () => {
    if (!window.confirm(`Delete ${device.name_custom}? Its credentials stop working at once; SMS not yet taken by the phone go to another device (those sent to this one by name fail), and SMS it took end, as it can no longer report them.`)) return;
    await action.run(async () => {
      await del(`/devices/${encodeURIComponent(device.id)}`);
      navigate('/devices');
    });
  };
  return (
    <Card title="Delete">
      <ErrorNotice error={action.error} />
      <p>Revokes the phone's credentials and closes its connection. SMS that named this device and are not sent yet fail.</p>
      <button type="button" class="button button-danger" onClick={remove}>
        Delete device
      </button>
    </Card>
  );
}
