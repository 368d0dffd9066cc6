/**
 * A symbol's signature and documentation kept without the text every row
 * would repeat. Most repeat the symbol's name (`func Name(…)`, `Name returns
 * …`): the first occurrence is stored as one placeholder character (U+0001).
 * Since schema 26 a signature's leading `#define ` (a C macro's: most of the
 * kernel's symbols) is stored as another (U+0002). The `symbols` view puts
 * both back with `textWithNameSql`. A text that already holds either
 * character (outside the name) is stored as its UTF-8 bytes (a blob), read
 * back unchanged.
 */

const NAME_MARK = "\u0001";
const DEFINE_MARK = "\u0002";
const DEFINE = "#define ";
/** The schema from which a leading `#define ` is kept as DEFINE_MARK. */
const DEFINE_MARK_SINCE = 26;
const utf8 = new TextEncoder();

/** What a symbol row keeps of `text` (its signature or doc) for a symbol named `name`. */
export function textWithoutName(text: string | null, name: string): string | Uint8Array | null {
  if (text === null) return null;
  if (text.includes(NAME_MARK)) return utf8.encode(text);
  const at = name ? text.indexOf(name) : -1;
  const kept = at < 0 ? text : text.slice(0, at) + NAME_MARK + text.slice(at + name.length);
  // The name, put back after the mark, may hold the mark's character; the rest of the text may not.
  if (kept.includes(DEFINE_MARK)) return utf8.encode(text);
  return kept.startsWith(DEFINE) ? DEFINE_MARK + kept.slice(DEFINE.length) : kept;
}

/** SQL giving back the text kept in column `col` of the symbol named by column `name`, as schema `v` keeps it. */
export function textWithNameSql(col: string, name: string, v: number): string {
  // The `#define ` first: the name put back may hold the other mark's character.
  const text = v >= DEFINE_MARK_SINCE ? `replace(${col}, char(2), '${DEFINE}')` : col;
  return `CASE typeof(${col}) WHEN 'text' THEN replace(${text}, char(1), ${name}) WHEN 'blob' THEN CAST(${col} AS TEXT) END`;
}

/**
 * SQL giving what a symbol row of schemas 13 to 25 keeps of the whole text
 * in column `col`: the name's first occurrence as the placeholder (an
 * upgrade's rewrite; `withDefineMarkSql` then gives schema 26's).
 */
export function textWithoutNameSql(col: string, name: string): string {
  const at = `instr(${col}, ${name})`;
  return `CASE WHEN instr(${col}, char(1)) > 0 THEN CAST(${col} AS BLOB)
    WHEN ${name} != '' AND ${at} > 0 THEN substr(${col}, 1, ${at} - 1) || char(1) || substr(${col}, ${at} + length(${name}))
    ELSE ${col} END`;
}

/**
 * SQL giving what a symbol row of schema 26 keeps of column `col` as
 * schemas 13 to 25 kept it: a leading `#define ` as its mark; a text already
 * holding the mark's character as its bytes, the name put back.
 */
export function withDefineMarkSql(col: string, name: string): string {
  return `CASE WHEN ${changedByDefineMarkSql(col)} THEN ${markedSql(col, name)} ELSE ${col} END`;
}

/** SQL true for a value of column `col` (kept as schemas 13 to 25 kept it) that schema 26 keeps otherwise. */
export function changedByDefineMarkSql(col: string): string {
  return `(typeof(${col}) = 'text' AND (substr(${col}, 1, ${DEFINE.length}) = '${DEFINE}' OR instr(${col}, char(2)) > 0))`;
}

/** SQL giving schema 26's value of a text in column `col` that `changedByDefineMarkSql` holds true of. */
function markedSql(col: string, name: string): string {
  return `CASE WHEN instr(${col}, char(2)) > 0 THEN CAST(replace(${col}, char(1), ${name}) AS BLOB)
    ELSE char(2) || substr(${col}, ${DEFINE.length + 1}) END`;
}
