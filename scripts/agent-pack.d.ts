// Types of agent-pack.js, which is plain JavaScript so that it runs before anything is compiled.
/** dist/agent/sms-gateway-agent.tgz: the agent as the gateway serves it. */
export const AGENT_PACKAGE: string;
/** Packs the agent unless the package is fresh (or `force`); resolves with whether it packed. */
export function ensureAgentPacked(options?: { force?: boolean }): Promise<boolean>;
