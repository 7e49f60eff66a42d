/** What the embedding page set, read from the frame's fragment (external_api.js writes it). */
export type Settings = Record<string, unknown>;

/** `prefix.key=<JSON>` pairs of the fragment; keys that could reach a prototype are dropped. */
export function readFragment(hash: string): Settings {
  const settings: Settings = Object.create(null) as Settings;
  for (const pair of hash.replace(/^#/, '').split('&')) {
    const at = pair.indexOf('=');
    if (at <= 0) continue;
    try {
      const key = decodeURIComponent(pair.slice(0, at));
      if (/__proto__|constructor|prototype/.test(key)) continue;
      settings[key] = JSON.parse(decodeURIComponent(pair.slice(at + 1))) as unknown;
    } catch {
      // a malformed pair is skipped, not fatal
    }
  }
  return settings;
}

/**
 * Whether the embedding page leaves the pre-join screen (our device check) on, as the anchor
 * reads its config: `prejoinConfig.enabled` when it is a boolean, else the older
 * `prejoinPageEnabled`; shown unless one says false.
 */
export function prejoinShown(settings: Settings): boolean {
  const config = settings['config.prejoinConfig'];
  const enabled = typeof config === 'object' && config !== null ? (config as Settings).enabled : undefined;
  if (typeof enabled === 'boolean') return enabled;
  return settings['config.prejoinPageEnabled'] !== false;
}
