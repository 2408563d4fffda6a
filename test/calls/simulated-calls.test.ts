// The simulator makes calls as a phone with the app does: it reports its calls and, with
// record_calls on, uploads a short generated WAV. Every call goes to the call log; an answered
// call's recording is uploaded only while record_calls is on.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { recordingConfig } from './recording-fixture.ts';

describe('calls: the simulated phone', () => {
  const fx = useGateway({ config: recordingConfig(() => fx) });

  it('with record_calls off, then reports calls and uploads nothing; on, then an answered call gets a WAV recording that plays back', async () => {
    const phone = await fx.connectDevice({ apiUrl: fx.baseUrl });
    const unrecorded = await phone.makeCall({ direction: 'incoming', phone: '+79161234567', durationSeconds: 5 });
    expect(unrecorded.uploaded).to.equal(undefined);

    const settingsArrived = new Promise<void>((resolve) => phone.once('settings', () => resolve()));
    expect((await fx.tenant.api.patch(`/devices/${phone.id}/settings`, { record_calls: true })).status).to.equal(200);
    await settingsArrived;
    const missed = await phone.makeCall({ direction: 'missed', phone: '+79161234568' });
    expect(missed.uploaded, 'a missed call has nothing to record').to.equal(undefined);
    const recorded = await phone.makeCall({ direction: 'outgoing', phone: '+79161234569', durationSeconds: 2 });
    expect(recorded.uploaded).to.equal(201);

    const calls = (await fx.tenant.api.get('/calls')).body.data as { device_call_id: string; id: string; recording: { content_type: string; size_bytes: number } | null }[];
    expect(calls.map((call) => call.device_call_id)).to.have.members([unrecorded.id, missed.id, recorded.id]);
    const withRecording = calls.find((call) => call.device_call_id === recorded.id)!;
    expect(withRecording.recording).to.include({ content_type: 'audio/wav' });
    expect(calls.filter((call) => call.recording !== null)).to.have.length(1);

    const audio = await fetch(`${fx.baseUrl}/api/ext/v1/calls/${withRecording.id}/recording`, { headers: { authorization: `Bearer ${fx.tenant.key}` } });
    expect(audio.status).to.equal(200);
    const bytes = Buffer.from(await audio.arrayBuffer());
    expect(bytes.subarray(0, 4).toString('ascii')).to.equal('RIFF');
    expect(bytes.length).to.equal(withRecording.recording!.size_bytes);
  });
});
