// A server a feature runs beside the HTTP API (the SMPP listener, the SMTP listener): none until
// the gateway starts it, none again once stopped. Made with the feature, so that its listeners
// are registered like every other and simply find no server while there is none.
export class Started<Server extends { stop(): Promise<void> }> {
  private server: Server | undefined;

  constructor(private readonly open: () => Promise<Server>) {}

  get current(): Server | undefined {
    return this.server;
  }

  async start(): Promise<void> {
    this.server = await this.open();
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    await server?.stop();
  }
}
