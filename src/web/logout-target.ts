/**
 * Where a person goes when she leaves a meeting she entered through a platform's join link
 * (issue 33 point 6): the link's `logoutURL`, as the meeting API wrote it (the join's own, else
 * the create's). Only an http(s) URL is followed; anything else (`javascript:`, `data:`, a bare
 * word) is ignored, and she stays on the page that says she left.
 */
export function logoutTarget(search: string): string | null {
  const value = new URLSearchParams(search).get('logoutURL');
  if (!value || value.length > 2048) return null;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}
