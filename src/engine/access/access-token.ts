/** A bearer token of the rooms API as stored: only its SHA-256 is kept. */
export interface AccessToken {
  readonly name: string;
  readonly tokenHash: Buffer;
  readonly createdAt: string;
  readonly lastUsedAt: string | null;
}

export interface AccessTokenStore {
  /** Returns false when a token of that name exists. */
  insert(token: AccessToken): boolean;
  findByHash(tokenHash: Buffer): AccessToken | null;
  list(): AccessToken[];
  delete(name: string): boolean;
  touch(name: string, at: string): void;
  initialTokenIssued(): boolean;
  markInitialTokenIssued(): void;
}
