/**
 * Whether a JSON text names a key twice in one object. JSON.parse (and so jose) keeps the
 * last of two equal names, so `{"room":"a","room":"*"}` could read one way to whoever checked
 * it and another way to us; a token like that is refused. Keys are compared decoded
 * (`"room"` and `"\u0072oom"` are the same name).
 *
 * Call it on text JSON.parse accepted: it walks the text without re-validating it.
 */
export function hasDuplicateKeys(json: string): boolean {
  // One frame per open object (its keys so far) or array (null).
  const stack: (Set<string> | null)[] = [];
  let expectKey = false;
  for (let i = 0; i < json.length; i++) {
    const c = json[i];
    if (c === '"') {
      let end = i + 1;
      while (json[end] !== '"') end += json[end] === '\\' ? 2 : 1;
      if (expectKey) {
        const keys = stack[stack.length - 1]!;
        const key = JSON.parse(json.slice(i, end + 1)) as string;
        if (keys.has(key)) return true;
        keys.add(key);
        expectKey = false;
      }
      i = end;
    } else if (c === '{') {
      stack.push(new Set());
      expectKey = true;
    } else if (c === '[') {
      stack.push(null);
    } else if (c === '}' || c === ']') {
      stack.pop();
      expectKey = false;
    } else if (c === ',') {
      expectKey = stack[stack.length - 1] instanceof Set;
    }
  }
  return false;
}
