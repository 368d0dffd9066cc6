/**
 * A symbol's signature and documentation kept without its name: most
 * repeat it (`func Name(…)`, `Name returns …`), so the first occurrence is
 * stored as one placeholder character (U+0001) and the `symbols` view puts
 * the name back with `textWithNameSql`. A text that already holds the
 * placeholder character is stored as its UTF-8 bytes (a blob), read back
 * unchanged.
 */

const PLACEHOLDER = "\u0001";
const utf8 = new TextEncoder();

/** What a symbol row keeps of `text` (its signature or doc) for a symbol named `name`. */
export function textWithoutName(text: string | null, name: string): string | Uint8Array | null {
  if (text === null) return null;
  if (text.includes(PLACEHOLDER)) return utf8.encode(text);
  const at = name ? text.indexOf(name) : -1;
  return at < 0 ? text : text.slice(0, at) + PLACEHOLDER + text.slice(at + name.length);
}

/** SQL giving back the text kept in column `col` of the symbol named by column `name`. */
export function textWithNameSql(col: string, name: string): string {
  return `CASE typeof(${col}) WHEN 'text' THEN replace(${col}, char(1), ${name}) WHEN 'blob' THEN CAST(${col} AS TEXT) END`;
}

/** SQL giving what a symbol row keeps of the text in column `col` (an upgrade's rewrite; see `textWithoutName`). */
export function textWithoutNameSql(col: string, name: string): string {
  const at = `instr(${col}, ${name})`;
  return `CASE WHEN instr(${col}, char(1)) > 0 THEN CAST(${col} AS BLOB)
    WHEN ${name} != '' AND ${at} > 0 THEN substr(${col}, 1, ${at} - 1) || char(1) || substr(${col}, ${at} + length(${name}))
    ELSE ${col} END`;
}
