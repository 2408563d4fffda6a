// A number in a query string or a path is text until it is read. Text that is not a number, a
// blank value and a parameter given twice are refused as what they are, never read as 0 ("limit
// must be at least 1" for ?limit=+, the first page for the legacy ?offset=+).
import { expect } from 'chai';
import { Type } from '@sinclair/typebox';
import { compile } from '../../src/common/schema-validation.ts';
import { check } from '../../src/http/validation.ts';
import { AppError } from '../../src/common/errors.ts';

const Query = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
    offset: Type.Optional(Type.Integer({ minimum: 0 })),
    ratio: Type.Optional(Type.Number()),
    status: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

function refusal(query: Record<string, unknown>): { message: string; details: unknown } {
  try {
    check(compile(Query, 'query'), query, 'query');
  } catch (error) {
    const { code, message, details } = error as AppError;
    expect(code).to.equal('validation_failed');
    return { message, details };
  }
  throw new Error(`${JSON.stringify(query)} was taken`);
}

describe('numbers given as text in a query string', () => {
  for (const blank of ['', ' ', '\t']) {
    it(`then limit=${JSON.stringify(blank)} is refused as blank, with the range it takes`, () => {
      const message = 'limit is blank; it must be a whole number from 1 to 100';
      expect(refusal({ limit: blank })).to.deep.equal({ message, details: [{ field: 'limit', in: 'query', message }] });
    });
  }

  it('then a blank offset is refused, not read as 0', () => {
    expect(refusal({ limit: '10', offset: ' ' }).message).to.equal('offset is blank; it must be a whole number of at least 0');
  });

  for (const text of ['abc', '1.5', '0x10', '0b1', 'Infinity', '10abc', '1 0']) {
    it(`then limit=${text} says the whole of what limit takes`, () => {
      expect(refusal({ limit: text }).message).to.equal('limit must be a whole number from 1 to 100');
    });
  }

  it('then a number out of range says the whole range too, the same words as text that is no number', () => {
    expect(refusal({ limit: '0' }).message).to.equal('limit must be a whole number from 1 to 100');
    expect(refusal({ limit: '101' }).message).to.equal('limit must be a whole number from 1 to 100');
    expect(refusal({ limit: '10', offset: '-1' }).message).to.equal('offset must be a whole number of at least 0');
  });

  it('then a number of any kind is told so', () => {
    expect(refusal({ ratio: '' }).message).to.equal('ratio is blank; it must be a number');
    expect(refusal({ ratio: 'half' }).message).to.equal('ratio must be a number');
  });

  it('then a parameter given twice is told so, a number or not', () => {
    expect(refusal({ limit: ['10', '20'] }).message).to.equal('limit is given more than once; give it once');
    expect(refusal({ status: ['sent', 'failed'] }).message).to.equal('status is given more than once; give it once');
  });

  it('then numbers written as numbers are still taken, spaces around them forgiven', () => {
    const validate = compile(Query, 'query');
    for (const [text, value] of [['10', 10], [' 10 ', 10], ['+7', 7], ['1e1', 10], ['1.0', 1]] as const) {
      const query: Record<string, unknown> = { limit: text };
      expect(validate(query), text).to.equal(true);
      expect(query.limit).to.equal(value);
    }
  });
});
