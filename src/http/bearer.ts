/** RFC 6750's `Bearer <token68>`, the scheme's name in any case. */
const bearer = /^Bearer\s+([A-Za-z0-9._~+/-]+=*)\s*$/i;

/**
 * The token of an `Authorization: Bearer` header (access tokens, session tokens alike); null
 * when the header is absent or not of that form, so that the caller answers 401.
 */
export function bearerToken(header: string | undefined): string | null {
  return header ? (bearer.exec(header)?.[1] ?? null) : null;
}
