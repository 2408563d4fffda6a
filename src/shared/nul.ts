// PostgreSQL text cannot hold the NUL character (U+0000): a string carrying one would fail deep
// in the database. Input is checked for it at the edge, where it can be refused as bad input.

/** The path of the first string in `value` that holds a NUL character, or undefined. */
export function findNul(value: unknown): string | undefined {
  // Iterative, not recursive: hostile JSON can nest thousands of levels deep.
  const stack: [unknown, string][] = [[value, '']];
  while (stack.length > 0) {
    const [item, path] = stack.pop()!;
    if (typeof item === 'string') {
      if (item.includes('\u0000')) return path || '(value)';
    } else if (Array.isArray(item)) {
      item.forEach((element, i) => stack.push([element, path ? `${path}.${i}` : String(i)]));
    } else if (item !== null && typeof item === 'object') {
      for (const [key, element] of Object.entries(item)) {
        const at = path ? `${path}.${key}` : key;
        if (key.includes('\u0000')) return at;
        stack.push([element, at]);
      }
    }
  }
  return undefined;
}
