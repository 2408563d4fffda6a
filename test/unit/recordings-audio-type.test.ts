import { expect } from 'chai';
import { detectAudioType, SNIFF_BYTES, wavDurationSeconds } from '../../src/modules/calls/recordings/audio-type.ts';
import { audioSample, filler, SERVED_TYPE, wav, type SampleType } from '../calls/recording-samples.ts';

describe('recording content sniffing', () => {
  for (const type of Object.keys(SERVED_TYPE) as SampleType[]) {
    it(`recognises ${type} from its bytes as ${SERVED_TYPE[type]}`, async () => {
      expect(await detectAudioType(audioSample(type).subarray(0, SNIFF_BYTES))).to.equal(SERVED_TYPE[type]);
    });
  }

  it('refuses what is not audio: text, a PNG, a PDF, bytes of no format, nothing', async () => {
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
    expect(await detectAudioType(Buffer.from('just some text, not audio at all'))).to.equal(undefined);
    expect(await detectAudioType(Buffer.concat([png, filler(64)]))).to.equal(undefined);
    expect(await detectAudioType(Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1'))).to.equal(undefined);
    expect(await detectAudioType(filler(4096))).to.equal(undefined);
    expect(await detectAudioType(Buffer.alloc(0))).to.equal(undefined);
  });

  it('refuses an Ogg container that holds video (Theora), and a RIFF that is an AVI', async () => {
    const ogg = audioSample('ogg-opus');
    ogg.write('\x80theora\0', 28, 'latin1');
    expect(await detectAudioType(ogg)).to.equal(undefined);
    const avi = audioSample('wav');
    avi.write('AVI ', 8, 'latin1');
    expect(await detectAudioType(avi)).to.equal(undefined);
  });

  it('reads a PCM WAV duration from its header, and none from other files', () => {
    expect(wavDurationSeconds(wav(32_000))).to.equal(2);
    expect(wavDurationSeconds(wav(8_000))).to.equal(0.5);
    expect(wavDurationSeconds(audioSample('mp3'))).to.equal(undefined);
    const streaming = wav(100);
    streaming.writeUInt32LE(0xffffffff, 40);
    expect(wavDurationSeconds(streaming)).to.equal(undefined);
  });
});
