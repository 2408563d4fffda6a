// What a recording is, decided from its first bytes (file-type's signatures), never from the
// Content-Type the phone sent: a phone's header says what it meant to send, the bytes what it did.
//
// Accepted, with the Content-Type the download answers with:
//   AMR (#!AMR)                       audio/amr    Android's AMR_NB/AMR_WB output
//   3GPP (ftyp 3gp*)                  audio/3gpp   file-type calls it video/3gpp: the container is
//                                                  the same, and a call recorder writes audio only
//   MP4/M4A (ftyp M4A, M4B, F4A, isom, mp42...)  audio/mp4  Android's MPEG_4 output (AAC) carries a
//                                                  generic brand that file-type names video/mp4
//   AAC in ADTS                       audio/aac    Android's AAC_ADTS output
//   MP3                               audio/mpeg
//   Ogg with Opus or Vorbis           audio/ogg    Android's OGG output (Opus)
//   WAV (RIFF WAVE)                   audio/wav
// Anything else, an image or text sent as audio/wav included, is refused.
import { fileTypeFromBuffer } from 'file-type';

/** Enough for every signature above (file-type reads at most this much for them). */
export const SNIFF_BYTES = 4100;

const AUDIO_BY_EXTENSION: Record<string, string> = {
  amr: 'audio/amr',
  '3gp': 'audio/3gpp',
  m4a: 'audio/mp4',
  m4b: 'audio/mp4',
  f4a: 'audio/mp4',
  f4b: 'audio/mp4',
  mp4: 'audio/mp4',
  aac: 'audio/aac',
  mp3: 'audio/mpeg',
  opus: 'audio/ogg',
  ogg: 'audio/ogg',
  wav: 'audio/wav',
};

/** The Content-Type to store and serve, or undefined when `head` does not start an accepted audio file. */
export async function detectAudioType(head: Uint8Array): Promise<string | undefined> {
  if (head.length === 0) return undefined;
  const found = await fileTypeFromBuffer(head);
  return found ? AUDIO_BY_EXTENSION[found.ext] : undefined;
}

/** Seconds of audio a WAV header announces (PCM: data size / byte rate); undefined for other types or an odd header. */
export function wavDurationSeconds(head: Buffer): number | undefined {
  if (head.length < 12 || head.toString('latin1', 0, 4) !== 'RIFF' || head.toString('latin1', 8, 12) !== 'WAVE') return undefined;
  let byteRate: number | undefined;
  // Chunks follow one another: id (4), size (4, little-endian), body (padded to an even size).
  for (let offset = 12; offset + 8 <= head.length; ) {
    const id = head.toString('latin1', offset, offset + 4);
    const size = head.readUInt32LE(offset + 4);
    if (id === 'fmt ' && offset + 16 <= head.length) byteRate = head.readUInt32LE(offset + 16);
    // A streaming writer leaves the data size 0 or 0xFFFFFFFF: no duration then.
    if (id === 'data') return byteRate && size > 0 && size !== 0xffffffff ? Math.round((size / byteRate) * 1000) / 1000 : undefined;
    offset += 8 + size + (size % 2);
  }
  return undefined;
}
