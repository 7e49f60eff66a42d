// JSON requests to the engine listener in-process for the organiser tests (accounts, My rooms):
// the host they are served under, the cookie, and the body parsed back.
import type { InProcess } from './app.js';

/** The service's own origin and host in these tests: what a CSRF-checked write must name. */
export const accountHost = 'meet.test';
export const accountOrigin = `http://${accountHost}`;

export interface JsonAnswer {
  status: number;
  body: any;
  headers: Record<string, string | string[] | number | undefined>;
}

export async function sendJson(
  d: InProcess,
  method: string,
  url: string,
  options: { body?: unknown; cookie?: string; headers?: Record<string, string> } = {},
): Promise<JsonAnswer> {
  const headers: Record<string, string> = { host: accountHost, ...options.headers };
  if (options.cookie) headers.cookie = `meet_account=${options.cookie}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const answer = await d.app.inject({
    method: method as 'GET',
    url,
    headers,
    ...(options.body !== undefined ? { payload: JSON.stringify(options.body) } : {}),
  });
  return {
    status: answer.statusCode,
    body: answer.body === '' ? null : JSON.parse(answer.body),
    headers: answer.headers,
  };
}
