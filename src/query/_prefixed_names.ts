/**
 * Names other code spells with a language's prefix: C, make and `.config`
 * files name Kconfig's `FOO` as `CONFIG_FOO` (`usePrefix` in
 * `src/core/languages.ts`). A name asked for with such a prefix also means
 * that language's symbol named by the rest.
 */
import { usePrefixes } from "../core/languages.ts";

/** A reading of a leaf name as a prefixed spelling: the language whose symbol it may mean, and that symbol's name. */
export interface PrefixedName {
  language: string;
  name: string;
}

/** The readings of `leaf` as a prefixed spelling (`CONFIG_FOO` → kconfig `FOO`; the prefix's case is ignored). */
export function prefixedReadings(leaf: string, language?: string): PrefixedName[] {
  return usePrefixes().flatMap(({ id, prefix }) =>
    leaf.length > prefix.length && leaf.slice(0, prefix.length).toUpperCase() === prefix &&
      (!language || language === id)
      ? [{ language: id, name: leaf.slice(prefix.length) }]
      : []
  );
}

/**
 * The rows `read` gives for the name of each prefixed reading of `leaf`, each kept to its reading's language
 * (`language`: only that language's reading).
 */
export function prefixedRows<T extends { language: string }>(
  leaf: string,
  read: (name: string) => T[],
  language?: string,
): T[] {
  return prefixedReadings(leaf, language).flatMap((p) => read(p.name).filter((r) => r.language === p.language));
}

/** True when a definition is spelled `leaf`: by its name, or by its qualified name (`CONFIG_FOO`). */
export function spelledAs(r: { name: string; qualified_name: string }, leaf: string): boolean {
  return r.name === leaf || r.qualified_name === leaf;
}
