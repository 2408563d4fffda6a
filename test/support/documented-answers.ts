// Holds a real answer to the OpenAPI document that describes its operation: the status is one the
// operation documents, the body validates against the schema documented for that status and
// content type, and an error's code is one the document names for that status. What a client
// generated from the document would fail to decode, or would not expect, is a problem here.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

type Schema = Record<string, unknown>;
interface Response {
  description?: string;
  content?: Record<string, { schema?: Schema }>;
}
interface Operation {
  responses: Record<string, Response>;
}
export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
}

export interface Answer {
  status: number;
  headers: Headers;
  json: unknown;
  text: string;
}

export class DocumentedAnswers {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: false, code: { optimize: false } });
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly document: OpenApiDocument) {
    addFormats(this.ajv);
  }

  /** The operations the document describes, as "METHOD /path/{param}". */
  operations(): string[] {
    return Object.entries(this.document.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`));
  }

  /** Why the answer does not match the document, or undefined when it does. */
  problem(method: string, path: string, answer: Answer): string | undefined {
    const operation = this.document.paths[path]?.[method.toLowerCase()];
    if (!operation) return `${method.toUpperCase()} ${path} is not documented`;
    const response = operation.responses[String(answer.status)] ?? operation.responses.default;
    if (!response) return `status ${answer.status} is not documented (documented: ${Object.keys(operation.responses).join(', ')}): ${answer.text.slice(0, 200)}`;
    const type = (answer.headers.get('content-type') ?? '').split(';')[0]!.trim();
    if (!response.content) return type && answer.text ? `status ${answer.status} is documented without a body, and came with ${type}` : undefined;
    // A media range (audio/*, */*) stands for every type in it, as OpenAPI reads it.
    const documented = response.content[type] ?? response.content[`${type.split('/')[0]}/*`] ?? response.content['*/*'];
    if (!documented) return `status ${answer.status} came as ${type || 'no content type'}; documented: ${Object.keys(response.content).join(', ')}`;
    if (!documented.schema || type !== 'application/json') return undefined;
    const validate = this.validator(documented.schema);
    if (!validate(answer.json)) return `the body does not validate: ${JSON.stringify(validate.errors?.slice(0, 3))} in ${answer.text.slice(0, 300)}`;
    const code = (answer.json as { error?: { code?: unknown } } | undefined)?.error?.code;
    // The gateway's errors name their codes in the status's description: `code`: message; ...
    if (answer.status >= 400 && typeof code === 'string' && response.description?.includes('`') && !response.description.includes(`\`${code}\``)) {
      return `error code ${code} is not among those documented for ${answer.status}: ${response.description.slice(0, 200)}`;
    }
    return undefined;
  }

  /** One validator per distinct schema: most answers share theirs (every error, every SMS), and compiling is what costs. */
  private validator(schema: Schema): ValidateFunction {
    const key = JSON.stringify(schema);
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = this.ajv.compile(this.inlined(schema) as Schema);
      this.compiled.set(key, validate);
    }
    return validate;
  }

  /** The schema with each $ref to the document's components replaced by the component (none refers to itself). */
  private inlined(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((item) => this.inlined(item));
    if (value === null || typeof value !== 'object') return value;
    const ref = (value as { $ref?: unknown }).$ref;
    if (typeof ref === 'string' && ref.startsWith('#/components/schemas/')) return this.inlined(this.document.components?.schemas?.[ref.slice('#/components/schemas/'.length)]);
    return Object.fromEntries(Object.entries(value).map(([key, member]) => [key, this.inlined(member)]));
  }
}
