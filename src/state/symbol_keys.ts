/**
 * A symbol's two handles as the store keeps them: the hex digits of a
 * `sym_…` id (12 bytes) and of a `b3:…` stable id (16 bytes) as blobs, less
 * than half their text. The `symbols` view spells them back with
 * `SYMBOL_ID_SQL` and `STABLE_ID_SQL`; a lookup by handle binds its key.
 */
import type { DatabaseSync } from "node:sqlite";
import { CruxeError } from "../core/errors.ts";
import { symbolId, symbolStableId } from "../core/ids.ts";

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
export const SYMBOL_KEY_INDEXED_SQL = (col: string): string => `substr(${col}, 1, ${KEPT_KEY_BYTES})`;

/**
 * SQL matching the symbol key in column `col` against the keys bound as
 * parameters ?1 … ?`count`, through the handle index (see
 * SYMBOL_KEY_INDEXED_SQL), then the whole handle in column `idCol` (a row
 * may keep only the first bytes of its key: see `SPELLED_KEY_BYTES`).
 */
export function symbolKeysMatchSql(col: string, count: number, idCol = "symbol_id"): string {
  const params = Array.from({ length: count }, (_, i) => `?${i + 1}`);
  return `${SYMBOL_KEY_INDEXED_SQL(col)} IN (${params.map(SYMBOL_KEY_INDEXED_SQL).join(", ")})
    AND ${idCol} IN (${params.map(SYMBOL_ID_SQL).join(", ")})`;
}

/**
 * Since schema 18 a symbol row keeps no handle it can spell again from its
 * other columns: no stable key (an empty one) and only the first bytes of its symbol
 * key (what the handle index holds), when the handles are what
 * `symbolStableId` and `symbolId` give for the row as the `symbols` view
 * reads it; a row whose handles are not (written by an older build) keeps
 * them whole. A whole symbol key is this long.
 */
export const SPELLED_KEY_BYTES = 12;

/**
 * Whether the texts a symbol's handles are spelled from (its file's path and
 * language, its kind, name, qualified name and signature) read back from the
 * store as written, so the view spells the handles the indexer made: SQLite
 * keeps text as UTF-8, where a lone surrogate (a cut in the middle of a
 * character) becomes U+FFFD. A row whose texts do not keeps its keys whole.
 */
export function viewSpellsHandles(texts: readonly string[]): boolean {
  return texts.every((t) => t.isWellFormed());
}

/** The stable key of a row whose stable id the view spells (see SPELLED_KEY_BYTES): no bytes, read as NULL. */
export const NO_KEY = new Uint8Array(0);

/** The bytes of a symbol key that a row keeps when the view spells its handles (see SPELLED_KEY_BYTES). */
export const KEPT_KEY_BYTES = 4;

/**
 * Registers the SQL functions the `symbols` view (schema 18 on) spells
 * handles with, on connection `db`: `cruxe_stable_id(language, kind,
 * qualified_name, signature)` and `cruxe_symbol_id(path, stable_id,
 * line_start)`, each NULL when an argument is. Every connection that reads
 * a project index needs them (`openDb` registers them).
 */
export function registerHandleFunctions(db: DatabaseSync): void {
  // The view spells the stable id twice per row (it is part of the symbol id): the last one is remembered.
  let last: unknown[] = [];
  let lastStable: string | null = null;
  db.function("cruxe_stable_id", { deterministic: true }, (language, kind, qualified, signature) => {
    if (language === last[0] && kind === last[1] && qualified === last[2] && signature === last[3]) return lastStable;
    last = [language, kind, qualified, signature];
    return lastStable = language === null || kind === null || qualified === null || signature === null
      ? null
      : symbolStableId(String(language), String(kind), String(qualified), String(signature));
  });
  db.function("cruxe_symbol_id", { deterministic: true }, (path, stable, line) => {
    return path === null || stable === null || line === null
      ? null
      : symbolId(String(path), String(stable), Number(line));
  });
}
