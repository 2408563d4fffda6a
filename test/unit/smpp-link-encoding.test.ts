// The SMPP link's text, out and in: GSM-7 or UCS-2, parts with their concatenation header (never
// cutting an escape pair or a surrogate pair), and incoming octets read by their data_coding,
// parts held until whole and let go when they stop coming or too many wait.
import { expect } from 'chai';
import { ManualClock } from '../../src/common/clock.ts';
import { IncomingParts } from '../../src/modules/upstreams/links/smpp/incoming-parts.ts';
import { decodeIncomingText, readIncomingPart, type IncomingPart } from '../../src/modules/upstreams/links/smpp/incoming-text.ts';
import { encodeOutgoingText } from '../../src/modules/upstreams/links/smpp/outgoing-text.ts';
import { absoluteSmppTime } from '../../src/modules/upstreams/links/smpp/smpp-time.ts';

const header = (part: Buffer) => [...part.subarray(0, 6)];
const body = (part: Buffer) => part.subarray(6);

describe('SMPP link: outgoing text', () => {
  it('sends GSM-7 text as data_coding 0, one septet an octet, extension characters as ESC pairs', () => {
    const out = encodeOutgoingText('Hi €[x]', 7);
    expect(out).to.include({ encoding: 'gsm7', dataCoding: 0, esmClass: 0 });
    expect([...out.parts[0]!]).to.deep.equal([0x48, 0x69, 0x20, 0x1b, 0x65, 0x1b, 0x3c, 0x78, 0x1b, 0x3e]);
  });

  it('sends anything outside GSM-7 as UCS-2 big-endian (data_coding 8)', () => {
    const out = encodeOutgoingText('Ñandú ç', 0);
    expect(out).to.include({ encoding: 'ucs2', dataCoding: 8 });
    expect(Buffer.from(out.parts[0]!).swap16().toString('utf16le')).to.equal('Ñandú ç');
  });

  it('keeps 160 septets in one part and cuts 161 into parts of 153, each with its header', () => {
    expect(encodeOutgoingText('a'.repeat(160), 1).parts).to.have.length(1);
    const out = encodeOutgoingText('a'.repeat(161), 200);
    expect(out.esmClass).to.equal(0x40);
    expect(out.parts.map(header)).to.deep.equal([[5, 0, 3, 200, 2, 1], [5, 0, 3, 200, 2, 2]]);
    expect(out.parts.map((part) => body(part).length)).to.deep.equal([153, 8]);
  });

  it('counts an extension character as two septets and never cuts its escape pair', () => {
    // 152 septets, then € (2): it does not fit in the first part's 153 and moves whole to the next.
    const out = encodeOutgoingText('a'.repeat(152) + '€' + 'b'.repeat(10), 1);
    expect(out.parts).to.have.length(2);
    expect(body(out.parts[0]!).length).to.equal(152);
    expect([...body(out.parts[1]!).subarray(0, 2)]).to.deep.equal([0x1b, 0x65]);
    // 80 € are 160 septets: one SMS.
    expect(encodeOutgoingText('€'.repeat(80), 1).parts).to.have.length(1);
  });

  it('cuts UCS-2 into 67 units a part and never splits a surrogate pair', () => {
    expect(encodeOutgoingText('Ж'.repeat(70), 1).parts).to.have.length(1);
    const out = encodeOutgoingText('Ж'.repeat(66) + '😀' + 'Ж'.repeat(5), 9);
    expect(out.parts).to.have.length(2);
    const texts = out.parts.map((part) => Buffer.from(body(part)).swap16().toString('utf16le'));
    expect(texts).to.deep.equal(['Ж'.repeat(66), '😀' + 'Ж'.repeat(5)]);
  });

  it('keeps the reference in one octet', () => {
    expect(header(encodeOutgoingText('a'.repeat(200), 300).parts[0]!)[3]).to.equal(300 & 0xff);
  });

  it('writes validity_period as an absolute SMPP time in UTC', () => {
    expect(absoluteSmppTime(new Date('2027-01-02T03:04:05.678Z'))).to.equal('270102030405000+');
  });
});

describe('SMPP link: incoming text', () => {
  it('reads GSM-7, IA5, Latin-1 and UCS-2 by data_coding, GSM-7 with a message class too', () => {
    expect(decodeIncomingText(Buffer.from([0x48, 0x69, 0x20, 0x1b, 0x65, 0x00]), 0)).to.equal('Hi €@');
    expect(decodeIncomingText(Buffer.from([0x48, 0x69, 0x00]), 0xf1)).to.equal('Hi@');
    expect(decodeIncomingText(Buffer.from('Hello', 'latin1'), 1)).to.equal('Hello');
    expect(decodeIncomingText(Buffer.from('Grüße', 'latin1'), 3)).to.equal('Grüße');
    expect(decodeIncomingText(Buffer.from('Привет 👋', 'utf16le').swap16(), 8)).to.equal('Привет 👋');
  });

  it('takes the header off and reads where the part belongs: 8-bit, 16-bit reference, or sar TLVs', () => {
    const eight = readIncomingPart({ esm_class: 0x40, data_coding: 0, short_message: Buffer.from([5, 0, 3, 9, 2, 1, 0x41]) });
    expect(eight.place).to.deep.equal({ reference: 9, total: 2, seq: 1 });
    expect([...eight.octets]).to.deep.equal([0x41]);
    const sixteen = readIncomingPart({ esm_class: 0x40, short_message: Buffer.from([6, 8, 4, 0x12, 0x34, 3, 3, 0x42]) });
    expect(sixteen.place).to.deep.equal({ reference: 0x1234, total: 3, seq: 3 });
    const sar = readIncomingPart({ short_message: Buffer.from('x'), sar_msg_ref_num: 5, sar_total_segments: 2, sar_segment_seqnum: 2 });
    expect(sar.place).to.deep.equal({ reference: 5, total: 2, seq: 2 });
    expect(readIncomingPart({ short_message: Buffer.alloc(0), message_payload: Buffer.from('payload') }).octets.toString()).to.equal('payload');
    // A part 1 of 1, or one numbered past its total, is an SMS of its own.
    expect(readIncomingPart({ esm_class: 0x40, short_message: Buffer.from([5, 0, 3, 9, 1, 1, 0x41]) }).place).to.equal(undefined);
    expect(readIncomingPart({ esm_class: 0x40, short_message: Buffer.from([5, 0, 3, 9, 2, 3, 0x41]) }).place).to.equal(undefined);
  });

  it('joins parts by their number, reading a surrogate pair cut between two parts as one character', () => {
    const parts = new IncomingParts<string>(new ManualClock(0));
    const ucs2 = Buffer.from('ab😀', 'utf16le').swap16();
    const part = (seq: number, octets: Buffer): IncomingPart => ({ octets, dataCoding: 8, language: 0, place: { reference: 1, total: 2, seq } });
    expect(parts.add('k', part(2, ucs2.subarray(6)), 'meta').completed).to.equal(undefined);
    const { completed } = parts.add('k', part(1, ucs2.subarray(0, 6)), 'meta');
    expect(completed).to.deep.equal({ meta: 'meta', text: 'ab😀', complete: true, missing: 0 });
    expect(parts.size).to.equal(0);
  });

  it('lets go of an SMS whose parts stopped coming, and of the oldest when too many wait', () => {
    const clock = new ManualClock(0);
    const parts = new IncomingParts<string>(clock, 2, 60_000);
    const part = (reference: number, seq: number, text: string): IncomingPart => ({ octets: Buffer.from(text), dataCoding: 3, language: 0, place: { reference, total: 3, seq } });
    parts.add('a', part(1, 1, 'one '), 'a');
    parts.add('a', part(1, 1, 'one '), 'a');
    clock.advance(30_000);
    parts.add('b', part(2, 1, 'two '), 'b');
    expect(parts.add('c', part(3, 2, 'three'), 'c').letGo).to.deep.equal([{ meta: 'a', text: 'one ', complete: false, missing: 2 }]);
    expect(parts.sweep()).to.deep.equal([]);
    clock.advance(60_000);
    expect(parts.sweep().map((sms) => sms.meta)).to.deep.equal(['b', 'c']);
  });
});
