// Every listener asks the kernel to queue up to 4096 connections it has not accepted yet, not
// Node's 511. After a restart a whole fleet reconnects within seconds; with a short queue the
// kernel drops the SYNs that do not fit while the event loop is busy with the first CONNECTs,
// those phones retry a second or more later, doubling each time, and the fleet comes back in
// waves. Read from the kernel itself: `ss` shows a listening socket's queue length as Send-Q.
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { LISTEN_BACKLOG } from '../../src/common/listen.ts';
import { useGateway } from '../support/use-gateway.ts';
import { SMPP_ON } from '../support/smpp-client.ts';
import { smtpOn } from '../mail/support.ts';

/** The accept queue's length of the socket listening on 127.0.0.1:port, as the kernel keeps it. */
function acceptQueueOf(port: number): number {
  const lines = execFileSync('ss', ['-ltnH', `sport = :${port}`], { encoding: 'utf8' }).trim().split('\n');
  expect(lines, `one listener on port ${port}`).to.have.length(1);
  // State Recv-Q Send-Q Local Peer: for a listener Send-Q is the queue's length.
  return Number(lines[0]!.trim().split(/\s+/)[2]);
}

describe('listeners: the queue of connections not yet accepted', () => {
  const fx = useGateway({
    config: { smpp: SMPP_ON, smtp: smtpOn(), metrics: { token: undefined, port: 0, host: '127.0.0.1' } },
    tenant: 'none',
  });
  // The kernel gives no more than net.core.somaxconn, whatever a process asks.
  const expected = Math.min(LISTEN_BACKLOG, Number(readFileSync('/proc/sys/net/core/somaxconn', 'utf8')));

  it('when the gateway listens, then MQTT, HTTP, /metrics, SMPP and SMTP each queue up to 4096 connections', () => {
    expect(LISTEN_BACKLOG).to.equal(4096);
    const { gateway } = fx;
    const ports = { mqtt: gateway.mqttPort, http: gateway.httpPort, metrics: gateway.metricsPort!, smpp: gateway.smppPort, smtp: gateway.smtpPort };
    for (const [listener, port] of Object.entries(ports)) {
      expect(acceptQueueOf(port), listener).to.equal(expected);
    }
  });
});
