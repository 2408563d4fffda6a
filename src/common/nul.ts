// PostgreSQL text cannot hold the NUL character (U+0000), and a lone UTF-16 surrogate (half an
// emoji, as "\ud83d" in JSON) is no text at all: it would be stored as a replacement character.
// Input is checked for both at the edge, where it can be refused as bad input.

/** The path of the first string in `value` that holds a NUL character or a lone surrogate, or undefined. */
export function findNul(value: unknown): string | undefined {
  // Almost every body is clean: a walk that keeps only the values answers that without building
  // a path string per element (for a bulk body of 40,000 rows, 2 ms instead of 30). Only a body
  // that holds bad text is walked again for the path to name in the error.
  return holdsUnstorableText(value) ? pathToUnstorableText(value) : undefined;
}

function holdsUnstorableText(value: unknown): boolean {
  // Iterative, not recursive: hostile JSON can nest thousands of levels deep.
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === 'string') {
      if (!isStorableText(item)) return true;
    } else if (Array.isArray(item)) {
      for (let i = 0; i < item.length; i++) stack.push(item[i]);
    } else if (item !== null && typeof item === 'object') {
      for (const key in item) {
        if (!Object.hasOwn(item, key)) continue;
        if (!isStorableText(key)) return true;
        stack.push((item as Record<string, unknown>)[key]);
      }
    }
  }
  return false;
}

function pathToUnstorableText(value: unknown): string | undefined {
  const stack: [unknown, string][] = [[value, '']];
  while (stack.length > 0) {
    const [item, path] = stack.pop()!;
    if (typeof item === 'string') {
      if (!isStorableText(item)) return path || '(value)';
    } else if (Array.isArray(item)) {
      item.forEach((element, i) => stack.push([element, path ? `${path}.${i}` : String(i)]));
    } else if (item !== null && typeof item === 'object') {
      for (const [key, element] of Object.entries(item)) {
        const at = path ? `${path}.${key}` : key;
        if (!isStorableText(key)) return at;
        stack.push([element, at]);
      }
    }
  }
  return undefined;
}

function isStorableText(text: string): boolean {
  return !text.includes('\u0000') && text.isWellFormed();
}
