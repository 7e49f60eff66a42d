// The part of oidc-provider the single sign-on tests drive (the package ships no types).
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  interface Grant {
    addOIDCScope(scope: string): void;
    save(): Promise<string>;
  }
  interface KoaContextWithOIDC {
    oidc: {
      provider: Provider;
      client?: { clientId: string };
      session?: { accountId?: string };
    };
  }
  interface Interaction {
    uid: string;
  }
  interface Configuration {
    clients: Record<string, unknown>[];
    claims: Record<string, string[]>;
    cookies: { keys: string[] };
    features: Record<string, unknown>;
    interactions: { url(ctx: KoaContextWithOIDC, interaction: Interaction): string };
    findAccount(
      ctx: KoaContextWithOIDC,
      sub: string,
    ): { accountId: string; claims(): Record<string, unknown> } | Promise<unknown>;
    loadExistingGrant(ctx: KoaContextWithOIDC): Promise<Grant | undefined>;
  }
  export default class Provider {
    constructor(issuer: string, configuration: Configuration);
    Grant: new (fields: { clientId: string; accountId: string }) => Grant;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionFinished(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, unknown>,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>;
  }
  export type { KoaContextWithOIDC };
}
