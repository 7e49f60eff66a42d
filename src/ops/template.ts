/**
 * Fills `{{name}}` placeholders. A placeholder without a value, or a value no placeholder
 * uses, is an error: a generated system file never carries an empty or forgotten setting.
 * Nothing is escaped; values come from validated settings, never from users.
 */
export function renderTemplate(template: string, values: Readonly<Record<string, string>>, name = 'template'): string {
  const used = new Set<string>();
  const missing = new Set<string>();
  const text = template.replace(/\{\{\s*([a-z_][a-z0-9_]*)\s*\}\}/g, (_, key: string) => {
    const value = values[key];
    if (value === undefined) {
      missing.add(key);
      return '';
    }
    used.add(key);
    return value;
  });
  if (missing.size > 0) throw new Error(`${name}: no value for ${[...missing].join(', ')}`);
  const unused = Object.keys(values).filter((key) => !used.has(key));
  if (unused.length > 0) throw new Error(`${name}: no placeholder for ${unused.join(', ')}`);
  return text;
}
