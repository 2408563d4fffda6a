// A TypeBox schema as the OpenAPI document shows it. The schemas that validate requests stay as
// they are; what client generators (openapi-generator, Kiota, NSwag, openapi-typescript) read is
// rewritten here, in one place, so that every module's schema is published the same way.
import type { TSchema } from '@sinclair/typebox';
import { MAX_CHARACTERS } from '../common/schema-validation.ts';

type Schema = Record<string, unknown>;

/** Plain JSON (TypeBox's symbol-keyed metadata dropped), with enumerations and character limits in their document form. */
export function documented(schema: TSchema): Schema {
  return rewrite(JSON.parse(JSON.stringify(schema))) as Schema;
}

function rewrite(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewrite);
  if (value === null || typeof value !== 'object') return value;
  const schema = Object.fromEntries(Object.entries(value).map(([key, member]) => [key, rewrite(member)])) as Schema;
  return withCharacterRule(asEnum(schema));
}

const isConstant = (branch: unknown): branch is Schema => typeof branch === 'object' && branch !== null && 'const' in branch;

/**
 * TypeBox writes a union of literals as `anyOf` of one `const` each, which generators turn into a
 * union of one-value types, or into a plain string, never into an enumeration. Constants of one
 * type become one `enum`; with null beside them (a nullable enumeration) the union stays, of the
 * enum and null, which is how OpenAPI 3.1 says nullable. A constant's own description (a Type.Literal
 * given one) goes to `x-enumDescriptions`, keyed by value, the extension Redoc shows beside each.
 */
function asEnum(schema: Schema): Schema {
  const branches = schema.anyOf;
  if (!Array.isArray(branches)) return schema;
  const constants = branches.filter(isConstant);
  const types = new Set(constants.map((branch) => branch.type));
  if (constants.length < 2 || types.size !== 1) return schema;
  const described = constants.filter((branch) => typeof branch.description === 'string');
  const enumeration: Schema = {
    ...(typeof constants[0]!.type === 'string' ? { type: constants[0]!.type } : {}),
    enum: constants.map((branch) => branch.const),
    ...(described.length ? { 'x-enumDescriptions': Object.fromEntries(described.map((branch) => [String(branch.const), branch.description])) } : {}),
  };
  const { anyOf: _union, ...rest } = schema;
  const others = branches.filter((branch) => !isConstant(branch));
  return others.length === 0 ? { ...rest, ...enumeration } : { ...rest, anyOf: [enumeration, ...others] };
}

/**
 * `x-maxCharacters` counts characters as a person does (grapheme clusters), which no generator
 * reads. JSON Schema's maxLength counts code points: an emoji with a skin tone is two, a flag two,
 * so maxLength 170 would refuse texts the gateway takes; a code point limit that equals the rule
 * does not exist, and none is given. The rule is said in the description, where people and
 * generated documentation read it.
 */
function withCharacterRule(schema: Schema): Schema {
  const limit = schema[MAX_CHARACTERS];
  if (typeof limit !== 'number') return schema;
  const rule =
    `at most ${limit} characters, counted as a person counts them (grapheme clusters: an emoji with a skin tone, a flag or a letter with ` +
    `a combining accent is one character; JSON Schema's maxLength would count code points, so the limit is given as ${MAX_CHARACTERS})`;
  const description = typeof schema.description === 'string' ? schema.description : '';
  // A description that already names the limit has it replaced by the whole rule, said once.
  const stated = new RegExp(`(at most|up to) ${limit} characters(, counted as a person counts them \\([^)]*\\))?`);
  return { ...schema, description: stated.test(description) ? description.replace(stated, rule) : description ? `${description}; ${rule}` : rule };
}
