/** Speaks state changes through the page's polite live region (present from the first paint). */
export function announce(message: string): void {
  const region = document.getElementById('announcer');
  if (!region) return;
  // Clearing first makes a repeated message be read again.
  region.textContent = '';
  window.setTimeout(() => (region.textContent = message), 50);
}
