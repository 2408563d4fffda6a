// Through the API: every SMS object says how many parts a phone sends its text as (`segments`)
// and in which alphabet (`encoding`): GSM-7 (160 septets alone, 153 per part, extension
// characters such as € count two) or UCS-2 (70 UTF-16 units alone, 67 per part). POST /sms,
// GET /sms/{id}, GET /sms and POST /sms/bulk all show the same two fields.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';

const PHONE = '+79161234567';

describe('SMS segments and encoding', () => {
  const fx = useGateway();


  async function created(message: string): Promise<any> {
    const reply = await fx.tenant.api.post('/sms', { phone: PHONE, message });
    expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
    expect(reply.body.message).to.equal(message);
    return reply.body;
  }

  const cases: [what: string, text: string, encoding: 'gsm7' | 'ucs2', segments: number][] = [
    ['160 GSM-7 letters', 'a'.repeat(160), 'gsm7', 1],
    ['161 GSM-7 letters', 'a'.repeat(161), 'gsm7', 2],
    ['170 GSM-7 letters (the message limit)', 'a'.repeat(170), 'gsm7', 2],
    ['80 euro signs (160 septets)', '€'.repeat(80), 'gsm7', 1],
    ['81 euro signs (162 septets)', '€'.repeat(81), 'gsm7', 2],
    ['159 letters and one bracket (161 septets)', 'a'.repeat(159) + '[', 'gsm7', 2],
    ['GSM-7 letters with accents of the basic table (é, ñ, ü)', 'Café mañana über', 'gsm7', 1],
    ['70 Cyrillic letters', 'ж'.repeat(70), 'ucs2', 1],
    ['71 Cyrillic letters', 'ж'.repeat(71), 'ucs2', 2],
    ['135 Cyrillic letters (two full parts of 67, and one more)', 'ж'.repeat(135), 'ucs2', 3],
    ['a short text with an emoji', 'Hi 👋', 'ucs2', 1],
    ['35 emoji (70 UTF-16 units)', '😀'.repeat(35), 'ucs2', 1],
    ['36 emoji (72 UTF-16 units)', '😀'.repeat(36), 'ucs2', 2],
    ['159 GSM-7 letters and one Cyrillic letter', 'a'.repeat(159) + 'ж', 'ucs2', 3],
  ];

  describe('POST /sms', () => {
    for (const [what, text, encoding, segments] of cases) {
      it(`when the text is ${what}, then it answers encoding ${encoding} and ${segments} segment(s)`, async () => {
        const sms = await created(text);
        expect({ encoding: sms.encoding, segments: sms.segments }).to.deep.equal({ encoding, segments });
      });
    }
  });

  describe('reading the SMS back', () => {
    it('when GET /sms/{id} reads a multi-part ucs2 SMS, then it shows the same segments and encoding as the POST answer', async () => {
      const sms = await created('ж'.repeat(71));
      const read = await fx.tenant.api.get(`/sms/${sms.id}`);
      expect(read.status).to.equal(200);
      expect(read.body).to.include({ segments: 2, encoding: 'ucs2' });
    });

    it('when GET /sms/{id} reads a GSM-7 SMS with extension characters, then it shows the same segments and encoding', async () => {
      const sms = await created('€'.repeat(81));
      const read = await fx.tenant.api.get(`/sms/${sms.id}`);
      expect(read.body).to.include({ segments: 2, encoding: 'gsm7' });
    });

    it('when GET /sms lists SMS, then each shows the segments and encoding of its own text', async () => {
      const texts: [string, string, number][] = [
        ['a'.repeat(160), 'gsm7', 1],
        ['a'.repeat(161), 'gsm7', 2],
        ['ж'.repeat(70), 'ucs2', 1],
        ['ж'.repeat(71), 'ucs2', 2],
      ];
      const ids = new Map<string, [string, number]>();
      for (const [text, encoding, segments] of texts) ids.set((await created(text)).id, [encoding, segments]);
      const list = await fx.tenant.api.get('/sms?limit=100');
      expect(list.status).to.equal(200);
      expect(list.body.data).to.have.length(texts.length);
      for (const sms of list.body.data) {
        const [encoding, segments] = ids.get(sms.id)!;
        expect({ id: sms.id, encoding: sms.encoding, segments: sms.segments }).to.deep.equal({ id: sms.id, encoding, segments });
      }
    });
  });

  describe('POST /sms/bulk', () => {
    it('when several texts are sent at once, then each created SMS shows the segments and encoding of its own text', async () => {
      const reply = await fx.tenant.api.post('/sms/bulk', {
        messages: [
          { phone: PHONE, message: 'a'.repeat(161) },
          { phone: PHONE, message: 'ж'.repeat(70) },
          { phone: PHONE, message: '€'.repeat(80) },
        ],
      });
      expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
      expect(reply.body.data.map((sms: { encoding: string; segments: number }) => [sms.encoding, sms.segments])).to.deep.equal([
        ['gsm7', 2],
        ['ucs2', 1],
        ['gsm7', 1],
      ]);
    });
  });
});
