// The Extended API's OpenAPI document, built in this process from the gateway's own
// features' routes given services that are never called: declaring a route reads only its
// schemas, so no database, broker or configuration is needed. scripts/generate-sdk-types.ts turns
// it into the types the TypeScript SDK and the control panel read.
import { EXTENDED_PREFIX } from '../src/http/extended-prefix.ts';
import { FeatureWaysIn } from '../src/composition/features.ts';
import { buildOpenApi } from '../src/http/openapi.ts';
import { PACKAGE_VERSION } from '../src/common/package-info.ts';

/**
 * The services a route handler would call; declaring the routes never calls one. Routes may take
 * their parts apart when declared (`const { devices } = parts`): any property of this stand-in is
 * a stand-in again, and only a call throws.
 */
const unused: never = new Proxy<() => void>(function standIn() {}, {
  get: () => unused,
  apply() {
    throw new Error('declaring the routes called a service: the generator cannot build the document without one');
  },
}) as never;

/** The Extended API's document, as the gateway serves it at /api/ext/v1/openapi.json less its other families. */
export async function extendedDocument(): Promise<Record<string, unknown>> {
  const broker = { mqttPort: () => 1883, mqttTls: false, mqttPublicUrl: undefined, publicUrl: undefined };
  const routes = (await FeatureWaysIn.load()).extendedRoutes(unused, { broker, session: { secure: false, maxAgeSeconds: 0 } });
  return buildOpenApi([{ prefix: EXTENDED_PREFIX, routes }], PACKAGE_VERSION);
}
