// USSD with two nodes on one PostgreSQL and one Redis: the client's request reaches a phone
// connected to the other node (the broker's messages cross over Redis), the phone's answer,
// consumed where it arrived, is read through the node that took the request, and a timeout is
// ended once, from the database, its cancel reaching the phone whichever node swept it.
import { expect } from 'chai';
import { RawClients, topic, type RawClient } from '../support/mqtt.ts';
import { useCluster } from '../cluster/cluster-fixture.ts';
import type { UssdSessionRow } from '../../src/modules/ussd/types.ts';
import type { Gateway } from '../../src/gateway.ts';

interface Request {
  session_id: string;
  step: number;
  action: string;
  code?: string;
  text?: string;
  reason?: string;
}

async function request(phone: RawClient, deviceId: string, accept: (request: Request) => boolean): Promise<Request> {
  const message = await phone.nextMessage((message) => message.topic === topic(deviceId, 'ussd') && accept(JSON.parse(message.payload)), 5_000);
  return JSON.parse(message.payload);
}

/** Every "ussd.finished" either node announces from now on, by session id. */
function hearFinished(nodes: Gateway[], onCleanup: (cleanup: () => unknown) => void): Map<string, { node: number; row: UssdSessionRow }[]> {
  const heard = new Map<string, { node: number; row: UssdSessionRow }[]>();
  nodes.forEach((gateway, node) =>
    onCleanup(gateway.services.events.on('ussd.finished', (row) => void heard.set(row.id, [...(heard.get(row.id) ?? []), { node, row }]))),
  );
  return heard;
}

describe('ussd: across nodes', function () {
  this.timeout(20_000);
  const cluster = useCluster({ ussdTimeoutMs: 1_000 });
  const { fx } = cluster;
  const onB = new RawClients(() => `mqtt://127.0.0.1:${cluster.b.mqttPort}`);
  afterEach(() => onB.endAll());

  async function phoneOnB(): Promise<{ id: string; mqtt: RawClient }> {
    const { device, token } = await fx.registerDevice('phone-on-b');
    const mqtt = await onB.device(device.id, token);
    expect(await mqtt.subscribe(topic(device.id, 'ussd'))).to.deep.equal([1]);
    return { id: device.id, mqtt };
  }

  it('when a code is dialled through node A for a phone on node B, then the phone gets it, and its menu, the reply and the answer are read through A', async () => {
    const phone = await phoneOnB();
    const started = await fx.tenant.api.post(`/devices/${phone.id}/ussd`, { code: '*111#' });
    expect(started.status, JSON.stringify(started.body)).to.equal(202);
    expect(await request(phone.mqtt, phone.id, (r) => r.session_id === started.body.id)).to.include({ action: 'dial', step: 0, code: '*111#' });
    await phone.mqtt.publish(topic(phone.id, 'ussd_status'), JSON.stringify({ session_id: started.body.id, step: 0, status: 'waiting_reply', message: '1. Balance' }), { qos: 2 });
    expect((await fx.tenant.api.get(`/ussd/${started.body.id}`)).body.status).to.equal('waiting_reply');
    expect((await fx.tenant.api.post(`/ussd/${started.body.id}/reply`, { text: '1' })).status).to.equal(202);
    expect(await request(phone.mqtt, phone.id, (r) => r.session_id === started.body.id && r.step === 1)).to.include({ action: 'reply', text: '1' });
    await phone.mqtt.publish(topic(phone.id, 'ussd_status'), JSON.stringify({ session_id: started.body.id, step: 1, status: 'completed', message: 'Balance: 1 EUR' }), { qos: 2 });
    expect((await fx.tenant.api.get(`/ussd/${started.body.id}`)).body).to.include({ status: 'completed', message: 'Balance: 1 EUR' });
  });

  it('when nobody answers, then the session is timed out once by one node, and the phone on B is told to cancel', async () => {
    const heard = hearFinished([fx.gateway, cluster.b], (cleanup) => fx.onCleanup(cleanup));
    const phone = await phoneOnB();
    const started = await fx.tenant.api.post(`/devices/${phone.id}/ussd`, { code: '*100#' });
    const cancel = await request(phone.mqtt, phone.id, (r) => r.session_id === started.body.id && r.action === 'cancel');
    expect(cancel).to.include({ reason: 'timeout', step: 0 });
    expect((await cluster.onB(fx.tenant).get(`/ussd/${started.body.id}`)).body).to.include({ status: 'failed', error: 'timeout' });
    // The cancel is published after the commit that announced it: by now the sweeping node has been heard.
    expect(heard.get(started.body.id)?.map((entry) => entry.row.error)).to.deep.equal(['timeout']);
  });
});
