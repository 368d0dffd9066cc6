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
