import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../clock.js';
import { EngineError, invalidField } from '../errors.js';
import type { AsyncAccessTokenStore } from '../async-ports.js';
import type { AccessToken } from './access-token.js';

const namePattern = /^[A-Za-z0-9._-]{1,64}$/;
export const initialTokenName = 'initial-admin';
/** Writing "last used" on every request would turn each read into a write; a minute is precise enough. */
const touchIntervalMs = 60_000;

export interface IssuedToken {
  readonly name: string;
  /** Shown once; never stored. */
  readonly token: string;
}

function digest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

export class AccessTokenService {
  constructor(
    private readonly store: AsyncAccessTokenStore,
    private readonly clock: Clock,
  ) {}

  async create(name: string): Promise<IssuedToken> {
    if (!namePattern.test(name)) throw invalidField('name', 'name must be 1 to 64 characters of A-Z a-z 0-9 . _ -');
    const issued = await this.insertNew(name);
    if (!issued) throw new EngineError('token_exists', `a token named ${name} exists already`, 'name');
    return issued;
  }

  /** The token's record when `presented` is a live token, else null. */
  async verify(presented: string): Promise<AccessToken | null> {
    const hash = digest(presented);
    const found = await this.store.findByHash(hash);
    // The lookup is by hash of a 256-bit random value; the constant-time check guards the last step anyway.
    if (!found || !timingSafeEqual(found.tokenHash, hash)) return null;
    const now = this.clock.now();
    if (found.lastUsedAt === null || now.getTime() - Date.parse(found.lastUsedAt) >= touchIntervalMs) {
      await this.store.touch(found.name, now.toISOString());
    }
    return found;
  }

  list(): Promise<AccessToken[]> {
    return this.store.list();
  }

  async revoke(name: string): Promise<void> {
    if (!(await this.store.delete(name))) throw new EngineError('token_not_found', `no token is named ${name}`, 'name');
  }

  /**
   * On an instance's first start, the one token an operator needs to begin; null ever after.
   * `deliver` hands it over (writes the file); if that fails the token is taken back and
   * not marked issued, so the next start tries again.
   */
  async issueInitialToken(deliver: (issued: IssuedToken) => void): Promise<IssuedToken | null> {
    if ((await this.store.initialTokenIssued()) || (await this.store.list()).length > 0) return null;
    // Another process starting on the same data directory may have issued it since the check: then it is theirs.
    const issued = await this.insertNew(initialTokenName);
    if (!issued) return null;
    try {
      deliver(issued);
    } catch (err) {
      await this.store.delete(issued.name);
      throw err;
    }
    await this.store.markInitialTokenIssued();
    return issued;
  }

  /** A fresh token stored under `name`; null when that name is taken. */
  private async insertNew(name: string): Promise<IssuedToken | null> {
    const token = `mt_${randomBytes(32).toString('base64url')}`;
    const inserted = await this.store.insert({
      name,
      tokenHash: digest(token),
      createdAt: this.clock.now().toISOString(),
      lastUsedAt: null,
    });
    return inserted ? { name, token } : null;
  }
}
