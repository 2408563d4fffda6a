// The values a request field accepts (webhook event types, key permissions), read from the API's
// own OpenAPI document: the gateway's list is the only one, so a new event or permission shows
// up in the panel without the panel changing, and the panel never keeps a copy that drifts.
import { get } from '../../api.ts';
import { useLoad, type Loaded } from '../../ui/use-load.ts';

interface SchemaNode {
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  anyOf?: SchemaNode[];
  enum?: string[];
  const?: string;
}

interface OpenApiDocument {
  paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: SchemaNode }> } }>>;
}

// One download for the whole panel session: the document is large and does not change while the
// gateway runs.
let documentOnce: Promise<OpenApiDocument> | undefined;

function openApiDocument(): Promise<OpenApiDocument> {
  documentOnce ??= get<OpenApiDocument>('/openapi.json').catch((error: unknown) => {
    documentOnce = undefined;
    throw error;
  });
  return documentOnce;
}

/** The values one field of a request body takes, as the API documents them (an array of literals). */
export function useRequestChoices(method: 'post' | 'patch', path: string, field: string): Loaded<string[]> {
  return useLoad(async () => {
    const document = await openApiDocument();
    const schema = document.paths[`/api/ext/v1${path}`]?.[method]?.requestBody?.content?.['application/json']?.schema;
    return literalsOf(schema?.properties?.[field]);
  }, [method, path, field]);
}

function literalsOf(node: SchemaNode | undefined): string[] {
  if (!node) return [];
  if (node.items) return literalsOf(node.items);
  if (node.enum) return node.enum;
  if (node.const !== undefined) return [node.const];
  return (node.anyOf ?? []).flatMap(literalsOf);
}
