// A device's freshly issued credentials, shown this once: the token, the MQTT credentials, and
// the pairing URL as a QR code and as text. Registration and "New token" both end here.
import { useState } from 'preact/hooks';
import { TextField } from '../../ui/fields.tsx';
import { Copyable, CopyButton, ShownOnce } from '../../ui/notice.tsx';
import { brokerOf, withBroker } from './connection-payload.ts';
import { ConnectionQr } from './connection-qr.tsx';
import type { IssuedCredentials } from '../../api/types.ts';

export function DevicePairing({ issued }: { issued: IssuedCredentials }) {
  const { device, credentials } = issued;
  const [broker, setBroker] = useState(() => brokerOf(issued.pairing_url));
  const pairingUrl = withBroker(issued.pairing_url, broker);
  // The install line carries the pairing URL: it follows a corrected broker address too.
  const installCommand = pairingUrl && issued.install_command ? issued.install_command.split(issued.pairing_url).join(pairingUrl) : undefined;
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
            error={pairingUrl ? undefined : 'Write it as mqtt://host:port, or mqtts://host:port for MQTT over TLS.'}
            hint="Where phones reach the gateway's MQTT broker, as the gateway knows it (MQTT_PUBLIC_URL, PUBLIC_URL or this page's host). Correct it if phones reach it elsewhere; the pairing URL and the QR code follow."
          />
        </div>
        <div class="card device-qr-card">
          <h2 class="card-heading">Pair the device</h2>
          {pairingUrl ? (
            <>
              <ConnectionQr payload={pairingUrl} />
              <div class="pairing-text">
                <p class="hint">
                  The pairing URL holds the broker address, the device id and the token. On a phone or modem run by the device agent:
                </p>
                <p>
                  <code data-testid="agent-command">sms-gateway-agent --pairing '{pairingUrl}'</code>
                </p>
                {installCommand ? (
                  <>
                    <p class="hint">
                      On an Android phone, paste this one line into Termux: it installs Node.js, Termux:API's commands and the agent from this
                      gateway, pairs the phone and starts it at every boot (Termux:Boot).
                    </p>
                    <Copyable value={installCommand} label="Copy install line" testId="install-command" />
                  </>
                ) : null}
                <p class="hint">Native apps read the same URL from the QR code.</p>
                <Copyable value={pairingUrl} label="Copy pairing URL" testId="pairing-url" />
                <p class="hint">It works like a password: share it only with the device.</p>
              </div>
            </>
          ) : (
            <p class="muted">Correct the broker address to draw the QR code.</p>
          )}
        </div>
      </div>
    </>
  );
}
