// Tiny but real audio files, made in the test: the first bytes each format's signature needs,
// then filler. Enough for a content sniffer; not meant to be played.
export type SampleType = 'wav' | 'mp3' | 'ogg-opus' | 'amr' | '3gp' | 'm4a';

/** The Content-Type the gateway stores and serves for each sample. */
export const SERVED_TYPE: Record<SampleType, string> = {
  wav: 'audio/wav',
  mp3: 'audio/mpeg',
  'ogg-opus': 'audio/ogg',
  amr: 'audio/amr',
  '3gp': 'audio/3gpp',
  m4a: 'audio/mp4',
};

export function audioSample(type: SampleType, bodyBytes = 2048): Buffer {
  switch (type) {
    case 'wav':
      return wav(bodyBytes);
    case 'mp3':
      // An MPEG-1 Layer III frame header (128 kbit/s, 44.1 kHz), then the frame's bytes.
      return Buffer.concat([Buffer.from([0xff, 0xfb, 0x90, 0x64]), filler(bodyBytes)]);
    case 'ogg-opus': {
      // An Ogg page header (27 bytes + 1 segment) whose packet is an OpusHead.
      const header = Buffer.alloc(28);
      header.write('OggS', 0, 'latin1');
      header[5] = 0x02; // beginning of stream
      header[26] = 1; // one segment
      header[27] = 19; // of 19 bytes
      const opusHead = Buffer.alloc(19);
      opusHead.write('OpusHead', 0, 'latin1');
      opusHead[8] = 1; // version
      opusHead[9] = 1; // mono
      opusHead.writeUInt32LE(48_000, 12);
      return Buffer.concat([header, opusHead, filler(bodyBytes)]);
    }
    case 'amr':
      return Buffer.concat([Buffer.from('#!AMR\n', 'latin1'), filler(bodyBytes)]);
    case '3gp':
      return Buffer.concat([ftyp('3gp4', ['isom', '3gp4']), filler(bodyBytes)]);
    case 'm4a':
      return Buffer.concat([ftyp('M4A ', ['M4A ', 'mp42', 'isom']), filler(bodyBytes)]);
  }
}

/** A mono 8 kHz 16-bit PCM WAV holding `dataBytes` bytes of samples (dataBytes / 16000 seconds). */
export function wav(dataBytes: number): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVE', 8, 'latin1');
  header.write('fmt ', 12, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(8000, 24); // sample rate
  header.writeUInt32LE(16_000, 28); // byte rate
  header.writeUInt16LE(2, 32); // block align
  header.writeUInt16LE(16, 34); // bits per sample
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(dataBytes, 40);
  return Buffer.concat([header, filler(dataBytes)]);
}

function ftyp(major: string, compatible: string[]): Buffer {
  const box = Buffer.alloc(16 + 4 * compatible.length);
  box.writeUInt32BE(box.length, 0);
  box.write('ftyp', 4, 'latin1');
  box.write(major, 8, 'latin1');
  compatible.forEach((brand, i) => box.write(brand, 16 + 4 * i, 'latin1'));
  return box;
}

/** Bytes that are no format's signature, different at every offset. */
export function filler(length: number): Buffer {
  const bytes = Buffer.alloc(length);
  for (let i = 0; i < length; i++) bytes[i] = (i * 31 + 7) & 0xff;
  return bytes;
}
