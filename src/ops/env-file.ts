/**
 * The service's environment file (systemd EnvironmentFile= and compose env_file): one
 * KEY=value per line, `#` comments, no quoting or expansion (systemd would treat quotes
 * differently from a shell, so values meetctl writes never need them).
 */
export function parseEnvFile(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    if (eq <= 0) continue;
    values[line.slice(0, eq).trim()] = line.slice(eq + 1).trim();
  }
  return values;
}
