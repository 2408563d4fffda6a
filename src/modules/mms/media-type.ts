// What a media upload is, decided from its bytes (file-type's signatures) and checked against the
// Content-Type the sender declared: the declared type must be one MMS carries, and the bytes must
// be that type. The declared type is what is stored and served, because it settles what bytes
// alone cannot (an MP4 with only audio is audio/mp4 or video/mp4 by what the sender meant).
//
// Accepted (declared type -> what the bytes must be):
//   image/jpeg, image/png, image/gif, image/webp, image/bmp        that image format
//   audio/amr, audio/mpeg, audio/aac, audio/ogg, audio/wav         that audio format
//   audio/mp4, video/mp4                                           an MP4 container (ftyp isom, mp42, M4A...)
//   audio/3gpp, video/3gpp                                         a 3GPP container (ftyp 3gp*)
//   text/plain                                                     UTF-8 text, no NUL
//   text/vcard (or text/x-vcard)                                   UTF-8 text starting BEGIN:VCARD
// Anything else, and any mismatch (a PNG declared image/jpeg, a ZIP declared text/plain), is refused.
import { fileTypeFromBuffer } from 'file-type';

/** Enough for every signature above, and for the start of a vCard. */
export const SNIFF_BYTES = 4100;

/** Declared type -> the file-type extensions its bytes may have. Text types have none: checked as text. */
const BINARY_TYPES: Record<string, readonly string[]> = {
  'image/jpeg': ['jpg'],
  'image/png': ['png'],
  'image/gif': ['gif'],
  'image/webp': ['webp'],
  'image/bmp': ['bmp'],
  'audio/amr': ['amr'],
  'audio/mpeg': ['mp3'],
  'audio/aac': ['aac'],
  'audio/ogg': ['ogg', 'opus', 'oga'],
  'audio/wav': ['wav'],
  'audio/mp4': ['mp4', 'm4a', 'm4b', 'f4a', 'f4b', 'm4v'],
  'video/mp4': ['mp4', 'm4a', 'm4b', 'm4v', 'f4v'],
  'audio/3gpp': ['3gp', '3g2'],
  'video/3gpp': ['3gp', '3g2'],
};

const TEXT_TYPES = ['text/plain', 'text/vcard'] as const;

/** Other spellings phones and libraries use, and the type they mean. */
const ALIASES: Record<string, string> = {
  'image/jpg': 'image/jpeg',
  'image/pjpeg': 'image/jpeg',
  'audio/mp3': 'audio/mpeg',
  'audio/x-wav': 'audio/wav',
  'audio/wave': 'audio/wav',
  'audio/x-m4a': 'audio/mp4',
  'text/x-vcard': 'text/vcard',
  'text/directory': 'text/vcard',
};

/** Every type accepted, for documentation and errors. */
export const ACCEPTED_MEDIA_TYPES: readonly string[] = [...Object.keys(BINARY_TYPES), ...TEXT_TYPES];

/** The declared Content-Type without parameters, in lower case, aliases resolved; undefined when not one MMS carries. */
export function acceptedType(declared: string | undefined): string | undefined {
  if (!declared) return undefined;
  const bare = declared.split(';')[0]!.trim().toLowerCase();
  const type = ALIASES[bare] ?? bare;
  return type in BINARY_TYPES || (TEXT_TYPES as readonly string[]).includes(type) ? type : undefined;
}

/**
 * Whether a part a phone reported is an MMS's layout (SMIL: where the parts go on a screen), which
 * holds no content of its own: a received MMS leaves it out instead of counting it missing.
 */
export function isLayout(declared: string): boolean {
  return declared.split(';')[0]!.trim().toLowerCase() === 'application/smil';
}

/**
 * Whether `head` (the first bytes; `whole` when that is the entire body) starts media of the
 * accepted type `type` (from acceptedType).
 */
export async function bytesAre(type: string, head: Buffer, whole: boolean): Promise<boolean> {
  if (head.length === 0) return false;
  const found = await fileTypeFromBuffer(head);
  const extensions = BINARY_TYPES[type];
  if (extensions) return found !== undefined && extensions.includes(found.ext);
  // Text: nothing file-type recognises but a vCard, valid UTF-8 (a character cut at the end of the head is fine), no NUL.
  if ((found && !(type === 'text/vcard' && found.ext === 'vcf')) || head.includes(0) || !isUtf8(head, whole)) return false;
  if (type === 'text/vcard') return /^(\uFEFF)?\s*BEGIN:VCARD/i.test(head.toString('utf8', 0, 64));
  return true;
}

function isUtf8(bytes: Buffer, whole: boolean): boolean {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  // A head cut inside a character leaves up to 3 bytes of it.
  for (let cut = 0; cut <= (whole ? 0 : 3) && cut < bytes.length; cut++) {
    try {
      decoder.decode(bytes.subarray(0, bytes.length - cut));
      return true;
    } catch {
      // try with the last bytes left out
    }
  }
  return false;
}
