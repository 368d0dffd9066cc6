/** snake_case keys for the CLI's JSON output, whatever the spelling of the object printed. */

/** `filesScanned` → `files_scanned`; a key already in snake_case is unchanged. */
export function snakeCase(key: string): string {
  return key.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();
}

/** A copy of `value` with every object key (at any depth) in snake_case; values are not touched. */
export function snakeKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(snakeKeys);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [snakeCase(k), snakeKeys(v)]));
}
