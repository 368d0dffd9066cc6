/**
 * A symbol's two handles as the store keeps them: the hex digits of a
 * `sym_…` id (12 bytes) and of a `b3:…` stable id (16 bytes) as blobs, less
 * than half their text. The `symbols` view spells them back with
 * `SYMBOL_ID_SQL` and `STABLE_ID_SQL`; a lookup by handle binds its key.
 */
import { CruxeError } from "../core/errors.ts";

const SYMBOL_PREFIX = "sym_";
const STABLE_PREFIX = "b3:";

/** SQL spelling the `sym_` handle of the symbol key in column `col` (NULL for NULL: `hex` would give ''). */
export const SYMBOL_ID_SQL = (col: string): string => `'sym_' || lower(nullif(hex(${col}), ''))`;
/** SQL spelling the `b3:` stable id of the stable key in column `col` (NULL for NULL). */
export const STABLE_ID_SQL = (col: string): string => `'b3:' || lower(nullif(hex(${col}), ''))`;

/** Lower-case hex digit (by char code) → its value; -1 for any other character. */
const NIBBLE = new Int8Array(128).fill(-1);
for (let i = 0; i < 16; i++) NIBBLE["0123456789abcdef".charCodeAt(i)] = i;

/**
 * The `bytes` bytes that the lower-case hex digits after `prefix` spell, when
 * `text` is exactly that prefix and those digits; else null. (Once per
 * symbol written: a table lookup per digit, no regular expression.)
 */
function keyOf(text: string, prefix: string, bytes: number): Uint8Array | null {
  if (text.length !== prefix.length + 2 * bytes || !text.startsWith(prefix)) return null;
  const out = new Uint8Array(bytes);
  for (let i = 0, at = prefix.length; i < bytes; i++, at += 2) {
    const hi = NIBBLE[text.charCodeAt(at)] ?? -1, lo = NIBBLE[text.charCodeAt(at + 1)] ?? -1;
    if (hi < 0 || lo < 0) return null;
    out[i] = hi << 4 | lo;
  }
  return out;
}

/** The stored key of a `sym_` handle; null when the text is no such handle (no symbol has it). */
export function symbolKey(symbolId: string): Uint8Array | null {
  return keyOf(symbolId, SYMBOL_PREFIX, 12);
}

/** The stored keys of a symbol the indexer made (its handles always have their shape; anything else is a bug). */
export function storedKeys(symbolId: string, stableId: string): { symbol: Uint8Array; stable: Uint8Array } {
  const symbol = symbolKey(symbolId);
  const stable = keyOf(stableId, STABLE_PREFIX, 16);
  if (!symbol || !stable) throw new CruxeError("internal_error", `malformed symbol handles ${symbolId} ${stableId}`);
  return { symbol, stable };
}

/**
 * SQL of the part of the symbol key in column `col` that the handle index
 * (`symbols_sid`) holds: its first 4 bytes, enough to tell apart millions of
 * handles (the few that share them are told apart by the whole key), at a
 * third of the index's bytes.
 */
export const SYMBOL_KEY_INDEXED_SQL = (col: string): string => `substr(${col}, 1, 4)`;

/**
 * SQL matching the symbol key in column `col` against the keys bound as
 * parameters ?1 … ?`count`, through the handle index (see SYMBOL_KEY_INDEXED_SQL).
 */
export function symbolKeysMatchSql(col: string, count: number): string {
  const params = Array.from({ length: count }, (_, i) => `?${i + 1}`);
  return `${SYMBOL_KEY_INDEXED_SQL(col)} IN (${params.map(SYMBOL_KEY_INDEXED_SQL).join(", ")})
    AND ${col} IN (${params.join(", ")})`;
}
