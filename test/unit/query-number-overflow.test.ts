// A query or path number too large for any number ("1e309") is coerced to Infinity, which the
// validator's own integer and range checks let through; it must be refused as not a number.
import { expect } from 'chai';
import { Type } from '@sinclair/typebox';
import { compile } from '../../src/common/schema-validation.ts';
import { check } from '../../src/http/validation.ts';
import { AppError } from '../../src/common/errors.ts';

const Query = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
    since: Type.Optional(Type.Number({ minimum: 0 })),
    ids: Type.Optional(Type.Array(Type.Integer())),
  },
  { additionalProperties: false },
);

function refusal(query: Record<string, unknown>): AppError {
  try {
    check(compile(Query, 'query'), query, 'query');
  } catch (error) {
    return error as AppError;
  }
  throw new Error(`${JSON.stringify(query)} was taken`);
}

describe('query numbers that overflow', () => {
  for (const text of ['1e309', '-1e309', '1e400']) {
    it(`then limit=${text} is a 400 naming limit as a whole number in its range`, () => {
      const error = refusal({ limit: text });
      expect(error.code).to.equal('validation_failed');
      expect(error.details).to.deep.equal([{ field: 'limit', in: 'query', message: 'limit must be a whole number from 1 to 100' }]);
    });
  }

  it('then a number field and an array item are refused the same way', () => {
    expect(refusal({ since: '1e309' }).details).to.deep.equal([{ field: 'since', in: 'query', message: 'since must be a number of at least 0' }]);
    // The item is named, with its items' type: a whole number, not the array it stands in.
    expect(refusal({ ids: ['1', '1e309'] }).details).to.deep.equal([{ field: 'ids.1', in: 'query', message: 'ids.1 must be a whole number' }]);
  });

  it('then numbers that fit are still coerced and taken, and the default still applies', () => {
    const validate = compile(Query, 'query');
    const query: Record<string, unknown> = { since: '1e300' };
    expect(validate(query)).to.equal(true);
    expect(query).to.deep.equal({ since: 1e300, limit: 50 });
  });
});
