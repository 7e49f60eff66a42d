/** The organiser's pages' calls to the service: JSON in and out, the cookie along, the CSRF token on writes. */
import type { Refusal } from './state/account-forms.js';

export interface Answer<T> {
  readonly ok: boolean;
  readonly status: number;
  readonly body: T | null;
  readonly refusal: Refusal;
}

export interface Me {
  readonly account: { readonly email: string; readonly name: string; readonly admin: boolean };
  readonly csrf_token: string;
}

export async function call<T>(method: string, path: string, body?: unknown, csrf?: string): Promise<Answer<T>> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (csrf) headers['x-csrf-token'] = csrf;
  try {
    const response = await fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    const parsed = text ? (JSON.parse(text) as unknown) : null;
    const error = (parsed as { error?: { code?: string; field?: string } } | null)?.error;
    const retry = Number(response.headers.get('retry-after'));
    return {
      ok: response.ok,
      status: response.status,
      body: response.ok ? (parsed as T) : null,
      refusal: {
        code: error?.code ?? 'unknown',
        field: error?.field ?? null,
        retryAfter: Number.isFinite(retry) && retry > 0 ? retry : null,
      },
    };
  } catch {
    return { ok: false, status: 0, body: null, refusal: { code: 'network', field: null, retryAfter: null } };
  }
}
