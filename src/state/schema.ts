/**
 * Versioned schemas of the two kinds of store file: the registry (projects,
 * known workspaces, jobs) and one index per project. Each migration moves a
 * store from version N-1 to N inside one transaction.
 */
import { SCHEMA_VERSION } from "../core/version.ts";
import type { SchemaStatus } from "../core/metadata.ts";
import { type Db, getMeta, setMeta, transaction } from "./db.ts";
import { gramText, NAME_LENGTH_INDEXES_SQL, NAME_TABLES_SQL } from "./name_lookup.ts";
import { markSortedNames, NAMES_SORTED, SYMBOL_NAMES_SQL } from "./sorted_names.ts";
import { buildNameGrams, NAME_GRAMS_SQL as PACKED_NAME_GRAMS_SQL } from "./name_grams.ts";
import { COMMON_TERMS_SQL, recordCommonTerms } from "./common_terms.ts";
import {
  KEPT_KEY_BYTES,
  SPELLED_KEY_BYTES,
  STABLE_ID_SQL,
  SYMBOL_ID_SQL,
  SYMBOL_KEY_INDEXED_SQL,
} from "./symbol_keys.ts";
import { changedByDefineMarkSql, textWithNameSql, textWithoutNameSql, withDefineMarkSql } from "./name_in_text.ts";
import { canSpillSorts } from "./spill_dir.ts";
import { FOLD_KEY_SQL, NAME_KEY_SQL, ROW_NAME_LOWER_SQL } from "./name_key.ts";
import { registerStoreFunctions } from "./store_functions.ts";
import { fillRefFileNames } from "./ref_file_names.ts";
import { codeSql, EDGE_KIND_WORDS, SYMBOL_KIND_WORDS, VISIBILITY_WORDS, wordCode, wordSql } from "./coded_words.ts";
import { CALL_EDGE_KIND, CALL_KIND } from "./call_edges.ts";

/** Registry migrations; index i brings the registry to version i + 1. */
export const REGISTRY_MIGRATIONS: string[] = [
  `CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
   CREATE TABLE projects (
     project_id TEXT PRIMARY KEY,
     repo_root TEXT NOT NULL UNIQUE,
     name TEXT NOT NULL,
     vcs_mode TEXT NOT NULL,
     default_ref TEXT NOT NULL,
     created_at TEXT NOT NULL
   );
   CREATE TABLE known_workspaces (
     path TEXT PRIMARY KEY,
     project_id TEXT NOT NULL,
     auto_discovered INTEGER NOT NULL DEFAULT 0,
     last_used_at TEXT NOT NULL,
     index_status TEXT NOT NULL DEFAULT 'not_indexed'
   );
   CREATE TABLE index_jobs (
     job_id TEXT PRIMARY KEY,
     project_id TEXT NOT NULL,
     ref TEXT NOT NULL,
     mode TEXT NOT NULL,
     status TEXT NOT NULL,
     progress_token TEXT NOT NULL,
     files_scanned INTEGER NOT NULL DEFAULT 0,
     files_indexed INTEGER NOT NULL DEFAULT 0,
     symbols_extracted INTEGER NOT NULL DEFAULT 0,
     estimated_completion_pct INTEGER NOT NULL DEFAULT 0,
     changed_files INTEGER,
     parse_errors INTEGER NOT NULL DEFAULT 0,
     duration_ms INTEGER,
     error_message TEXT,
     recovery_acknowledged INTEGER NOT NULL DEFAULT 0,
     owner_pid INTEGER,
     created_at TEXT NOT NULL,
     started_at TEXT,
     updated_at TEXT NOT NULL,
     finished_at TEXT
   );
   CREATE INDEX index_jobs_project ON index_jobs(project_id, created_at);`,
  // The stage of a running job, so another process's index_status can show it.
  `ALTER TABLE index_jobs ADD COLUMN stage TEXT;`,
];

/** Secondary indexes of the first schema's tables. */
const FIRST_INDEXES: [string, string][] = [
  ["symbols_name", "symbols(name_lower)"],
  ["symbols_path", "symbols(path, line_start)"],
  ["symbols_parent", "symbols(parent_id)"],
  ["symbols_sid", "symbols(symbol_id)"],
  ["symbols_stable", "symbols(stable_id)"],
  ["edges_target", "edges(target_lower, kind)"],
  ["edges_source", "edges(source_id)"],
  ["edges_path", "edges(path)"],
  ["chunks_path", "chunks(path, line_start)"],
];

/** Indexes a later schema dropped: no query reads through them. */
const DROPPED_INDEXES = ["symbols_stable"];

/**
 * The indexes of symbols, edges and chunks of schema 5, on their row
 * tables (the views of the same names read through them).
 */
const ROW_TABLE_INDEXES_5: [string, string][] = [
  ["symbols_name", "symbol_rows(coalesce(name_lower, lower(name)))"],
  ["symbols_path", "symbol_rows(file_id, line_start)"],
  ["symbols_parent", "symbol_rows(parent_id)"],
  ["symbols_sid", "symbol_rows(symbol_id)"],
  ["edges_target", "edge_rows(coalesce(target_lower, lower(target)), kind)"],
  ["edges_source", "edge_rows(source_id)"],
  ["edges_path", "edge_rows(file_id)"],
  ["chunks_path", "chunk_rows(file_id, line_start)"],
];

/**
 * The same since schema 8: symbols by their stored key (see `symbol_keys.ts`);
 * since 11 only symbols inside another are indexed by parent (a read by
 * parent names one; five in six symbols have none); since 12 no index of a
 * file's rows (its row id ranges in `files` find them, see `FILE_RANGES`);
 * since 15 the handle index holds a prefix of each key (`symbol_keys.ts`);
 * since 16 edges by target id (see EDGE_TARGETS_SQL); since 19 by target id
 * alone (every read by target reads the edge rows, for their place, and
 * checks the kind there: the kind only cost a tenth of the index); since 21
 * symbols by the key of their lower-case name (`name_key.ts`), a third of
 * the bytes of the name itself.
 */
const LATER_INDEXES: Record<string, string | null> = {
  edges_target: "edge_rows(target_id)",
  symbols_name: `symbol_rows(${NAME_KEY_SQL(ROW_NAME_LOWER_SQL())})`,
  symbols_sid: `symbol_rows(${SYMBOL_KEY_INDEXED_SQL("symbol_key")})`,
  symbols_parent: "symbol_rows(parent_id) WHERE parent_id IS NOT NULL",
  symbols_path: null,
  edges_path: null,
  chunks_path: null,
};
const ROW_TABLE_INDEXES: [string, string][] = ROW_TABLE_INDEXES_5.flatMap(([n, on]) => {
  const later = n in LATER_INDEXES ? LATER_INDEXES[n] : on;
  return later === null ? [] : [[n, later] as [string, string]];
});

/**
 * Secondary indexes of a project index; dropped during a cold bulk load and
 * rebuilt after. The references have none since schema 25 (see REFS_SQL_25).
 */
export const SECONDARY_INDEXES: [string, string][] = ROW_TABLE_INDEXES;

/**
 * Reference names since schema 27: no unique index of the name. The one
 * index is by the key of the name's lower case, as JavaScript lower-cases it:
 * reads by a name in any case (call edges kept as references, see
 * `call_edges.ts`) and by its exact spelling (`FOLDED_NAME_IS_SQL`: the key,
 * then the name) both search it, at under half the bytes of the name
 * itself. Every name is written once: the writer adds one only after
 * looking it up. The writer reads it while it loads, so it stays during a
 * bulk load.
 */
const REF_NAMES_SQL = `CREATE TABLE ref_names (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
  CREATE INDEX ref_names_fold ON ref_names(${FOLD_KEY_SQL("name")});`;

/** The references' name index of schemas 6 to 24. */
const REFS_NAME_INDEX_SQL = "CREATE INDEX IF NOT EXISTS refs_name ON refs(name_id);";

/**
 * Schema 5's rows of symbols, edges and chunks: each names its file by id
 * (the `files` rowid, as the reference index does) and leaves out what it
 * can be read from: the language (its file's), a lower-case name when
 * SQLite's `lower` gives it, a qualified name equal to the name. Views of
 * the old table names put the rows back together, so every read keeps its
 * columns; writes go to the row tables, after the file's row (whose id they
 * take). About a third of these tables' bytes, and most of their path indexes.
 */
const ROW_TABLES_SQL = `
  CREATE TABLE symbol_rows (
    id INTEGER PRIMARY KEY, file_id INTEGER NOT NULL,
    name TEXT NOT NULL, name_lower TEXT, qualified_name TEXT, kind TEXT NOT NULL,
    signature TEXT NOT NULL, doc TEXT, visibility TEXT,
    line_start INTEGER NOT NULL, line_end INTEGER NOT NULL, parent_id INTEGER,
    stable_id TEXT NOT NULL, symbol_id TEXT NOT NULL
  );
  CREATE TABLE edge_rows (
    id INTEGER PRIMARY KEY, file_id INTEGER NOT NULL, kind TEXT NOT NULL, source_id INTEGER,
    target TEXT NOT NULL, target_lower TEXT, line INTEGER NOT NULL
  );
  CREATE TABLE chunk_rows (
    id INTEGER PRIMARY KEY, file_id INTEGER NOT NULL, line_start INTEGER NOT NULL, line_end INTEGER NOT NULL,
    symbol_row INTEGER, content TEXT NOT NULL
  );`;

/**
 * Schema 5's files: the file id is a declared INTEGER PRIMARY KEY (the rows
 * of the other tables name their file by it, and VACUUM keeps it, as it
 * would not keep an implicit rowid). `full_text` 0: above the full-text
 * limit (symbols and references only; its names stay out of the name tables).
 */
const FILES_TABLE_SQL_5 = `
  CREATE TABLE files (
    id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, hash TEXT NOT NULL, size INTEGER NOT NULL,
    mtime_ms INTEGER NOT NULL, language TEXT NOT NULL, line_count INTEGER NOT NULL, symbol_count INTEGER NOT NULL,
    parse_error TEXT, generated INTEGER NOT NULL DEFAULT 0, full_text INTEGER NOT NULL DEFAULT 1
  );`;

/**
 * Since schema 12 each file row holds the first and last row id of its
 * symbols, edges and chunks (NULL: none): a file's rows are written
 * together with consecutive ids, so the range finds them without an index
 * of their file id. The views also match the file id, so a range that
 * holds another file's rows (a store carried over from before) stays exact.
 */
const FILE_RANGES = ["sym_lo", "sym_hi", "edge_lo", "edge_hi", "chunk_lo", "chunk_hi"];

/** Sets every file's id ranges from the rows that name it (rows written without them: an upgrade, a test). */
export const FILL_FILE_RANGES_SQL = [["sym", "symbol_rows"], ["edge", "edge_rows"], ["chunk", "chunk_rows"]].map((
  [range, table],
) =>
  `UPDATE files SET ${range}_lo = r.lo, ${range}_hi = r.hi
     FROM (SELECT file_id, min(id) AS lo, max(id) AS hi FROM ${table} GROUP BY file_id) AS r WHERE r.file_id = files.id;`
).join("\n");

/** `files` since schema 12. */
const FILES_TABLE_SQL = FILES_TABLE_SQL_5.replace(
  "full_text INTEGER NOT NULL DEFAULT 1",
  `full_text INTEGER NOT NULL DEFAULT 1, ${FILE_RANGES.map((c) => `${c} INTEGER`).join(", ")}`,
);

/** The columns of `files`. */
const FILE_COLUMNS = [
  "id, path, hash, size, mtime_ms, language, line_count, symbol_count, parse_error, generated, full_text",
  ...FILE_RANGES,
].join(", ");

/**
 * The join of rows `r` (of table `table`) to their file `f` as schema `v`
 * makes it: since 12 by the file's id range as well (see `FILE_RANGES`), so
 * a read of a file's rows goes from the file to a range of row ids. The
 * rows' `file_id` is compared as an expression (`+`): no index holds it, and
 * as a column SQLite preferred building an automatic one over every row (6 s
 * on the kernel's 6.8 M symbols, each time) to reading the range.
 */
export function fileJoinSql(table: "symbol" | "edge" | "chunk", r: string, v = SCHEMA_VERSION): string {
  const range = table === "symbol" ? "sym" : table;
  return v >= 12
    ? `f.id = +${r}.file_id AND ${r}.id BETWEEN f.${range}_lo AND f.${range}_hi`
    : `f.rowid = ${r}.file_id`;
}

/**
 * SQL giving the last line of symbol or chunk row `r` as schema `v` keeps
 * it: since 17 its distance from the first (`line_span`), which most rows
 * keep in no byte at all (one-line symbols: 0) where a line number takes two
 * or three.
 */
function lineEndSql(r: string, v: number): string {
  return v >= 17 ? `${r}.line_start + ${r}.line_span` : `${r}.line_end`;
}

/** The view `chunks` of schema `v` (5 and later): each chunk row with its file's path and language; since 17 see `lineEndSql`. */
export function chunksViewSql(v: number): string {
  return `
  CREATE VIEW chunks AS
    SELECT c.id AS id, f.path AS path, c.line_start AS line_start, ${lineEndSql("c", v)} AS line_end,
      c.symbol_row AS symbol_row, f.language AS language, c.content AS content
    FROM chunk_rows c JOIN files f ON ${fileJoinSql("chunk", "c", v)};`;
}

/**
 * The view `symbols` of schema `v` (5 and later): each row with its file's
 * path and language, names whole; since 8 the handles spelled from their
 * stored keys (see `symbol_keys.ts`; `symbol_key` is there for lookups by
 * handle), since 9 kind and visibility from their codes (`coded_words.ts`),
 * since 10 the qualified name from its qualifier (`qualifiedNameSql`),
 * since 13 signature and doc with the name put back (`name_in_text.ts`);
 * since 17 the last line from the span (`lineEndSql`); since 21 the key the
 * name index holds (`name_key`, see `name_key.ts`); since 26 signature and
 * doc with a leading `#define ` put back.
 */
export function symbolsViewSql(v: number): string {
  const handles = v >= 8
    ? `${symbolHandlesSql("s", "f", v)}, s.symbol_key AS symbol_key`
    : "s.stable_id AS stable_id, s.symbol_id AS symbol_id";
  const kind = symbolKindSql("s", v);
  const visibility = v >= 9 ? wordSql(VISIBILITY_WORDS, "s.visibility") : "s.visibility";
  const doc = v >= 13 ? textWithNameSql("s.doc", "s.name", v) : "s.doc";
  return `
  CREATE VIEW symbols AS
    SELECT s.id AS id, f.path AS path, s.name AS name, ${ROW_NAME_LOWER_SQL("s")} AS name_lower,${
    v >= 21 ? ` ${NAME_KEY_SQL(ROW_NAME_LOWER_SQL("s"))} AS name_key,` : ""
  }
      ${qualifiedNameSql("s", v)} AS qualified_name, ${kind} AS kind, f.language AS language,
      ${signatureSql("s", v)} AS signature, ${doc} AS doc, ${visibility} AS visibility, s.line_start AS line_start,
      ${lineEndSql("s", v)} AS line_end, s.parent_id AS parent_id, ${handles}
    FROM symbol_rows s JOIN files f ON ${fileJoinSql("symbol", "s", v)};`;
}

/** SQL giving the kind of symbol row `s` as schema `v` keeps it: since 9 decoded (`coded_words.ts`). */
function symbolKindSql(s: string, v: number): string {
  return v >= 9 ? wordSql(SYMBOL_KIND_WORDS, `${s}.kind`) : `${s}.kind`;
}

/**
 * SQL giving the signature of symbol row `s` as schema `v` keeps it: since 13 with the name put back, since 26
 * with a leading `#define ` put back.
 */
function signatureSql(s: string, v: number): string {
  return v >= 13 ? textWithNameSql(`${s}.signature`, `${s}.name`, v) : `${s}.signature`;
}

/** SQL spelling the stable id of symbol row `s` in file row `f` from the row (schema 18 on; see SPELLED_KEY_BYTES). */
function spelledStableIdSql(s: string, f: string, v: number): string {
  return `cruxe_stable_id(${f}.language, ${symbolKindSql(s, v)}, ${qualifiedNameSql(s, v)}, ${signatureSql(s, v)})`;
}

/**
 * SQL giving the handles of symbol row `s` in file row `f` as schema `v`
 * (8 and later) keeps them, as the columns `stable_id` and `symbol_id`:
 * spelled from their stored keys; since 18 from the row itself
 * (`cruxe_stable_id`, `cruxe_symbol_id`: see `SPELLED_KEY_BYTES`) unless it
 * keeps them whole. NULL for a NULL row (an outer join's).
 */
export function symbolHandlesSql(s: string, f: string, v = SCHEMA_VERSION): string {
  const [stable, symbol] = [STABLE_ID_SQL(`${s}.stable_key`), SYMBOL_ID_SQL(`${s}.symbol_key`)];
  if (v < 18) return `${stable} AS stable_id, ${symbol} AS symbol_id`;
  const stableId = `coalesce(${stable}, ${spelledStableIdSql(s, f, v)})`;
  return `${stableId} AS stable_id, CASE WHEN length(${s}.symbol_key) = ${SPELLED_KEY_BYTES} THEN ${symbol}
    ELSE cruxe_symbol_id(${f}.path, ${stableId}, ${s}.line_start) END AS symbol_id`;
}

/**
 * SQL giving the qualified name of the symbol row `s` as schema `v` keeps it:
 * NULL when it is the name; since 10 a name qualified by a dot keeps only
 * its `qualifier` (`p.T` of `p.T.Name`), any other (`ns::name`) is whole.
 */
export function qualifiedNameSql(s: string, v = SCHEMA_VERSION): string {
  return v >= 10
    ? `coalesce(${s}.qualified_name, ${s}.qualifier || '.' || ${s}.name, ${s}.name)`
    : `coalesce(${s}.qualified_name, ${s}.name)`;
}

/**
 * The view `edges` of schema `v` (5 and later): each row with its file's
 * path, target whole; since 9 kind decoded; since 16 the target read from
 * the interned targets (see EDGE_TARGETS_SQL).
 */
export function edgesViewSql(v: number): string {
  const t = v >= 16 ? "t" : "e";
  const [target, lower] = v >= 16 ? ["name", "name_lower"] : ["target", "target_lower"];
  return `
  CREATE VIEW edges AS
    SELECT e.id AS id, f.path AS path, ${v >= 9 ? wordSql(EDGE_KIND_WORDS, "e.kind") : "e.kind"} AS kind,
      e.source_id AS source_id, ${t}.${target} AS target, coalesce(${t}.${lower}, lower(${t}.${target})) AS target_lower,
      e.line AS line
    FROM edge_rows e JOIN files f ON ${fileJoinSql("edge", "e", v)}${
    v >= 16 ? " JOIN edge_targets t ON t.id = e.target_id" : ""
  };`;
}

/**
 * Since schema 16 an edge names its target by id: each distinct target
 * spelling is kept once in `edge_targets` (its lower case too when SQLite's
 * `lower` does not give it), found by its lower case (the writer then
 * checks the spelling), and the edges' target index holds ids, not text.
 * Targets of deleted edges may stay (the view reads only those an edge names).
 */
const EDGE_TARGETS_SQL = `
  CREATE TABLE edge_targets (id INTEGER PRIMARY KEY, name TEXT NOT NULL, name_lower TEXT);
  CREATE INDEX edge_targets_lower ON edge_targets(coalesce(name_lower, lower(name)));`;

/** Schema 16's edge rows (see EDGE_TARGETS_SQL). */
const EDGE_ROWS_16_SQL = `CREATE TABLE edge_rows (
  id INTEGER PRIMARY KEY, file_id INTEGER NOT NULL, kind TEXT NOT NULL, source_id INTEGER, target_id INTEGER NOT NULL,
  line INTEGER NOT NULL
);`;

/** The views `symbols`, `edges` and `chunks`: each row with its file's path and language, names whole. */
const ROW_VIEWS_SQL = `${symbolsViewSql(SCHEMA_VERSION)}${edgesViewSql(SCHEMA_VERSION)}${
  chunksViewSql(SCHEMA_VERSION)
}`;

/**
 * Blobs a ref build read and skipped at a path (binary, or no language by
 * their `#!` line): not read again there. Added to a refs store that lacks it.
 */
export const REF_SKIPPED_BLOBS_SQL = `CREATE TABLE IF NOT EXISTS skipped_blobs (path TEXT NOT NULL, blob TEXT NOT NULL,
  PRIMARY KEY (path, blob)) WITHOUT ROWID;`;

/** The meta keys of a refs store that are the whole store's, not one commit's (SQL list). */
const STORE_META_KEYS = ["schema_version", "symbol_names_built", NAMES_SORTED, "skipped_blobs_by"].map((k) => `'${k}'`)
  .join(", ");

/**
 * Turns a project index into a refs store (see `src/state/ref_stores.ts`):
 * `files` holds versions, so a path may appear once per distinct content
 * (the path stays indexed, no longer unique; ids are never reused, so a list
 * read before a version was deleted cannot name another one); each indexed commit lists its
 * versions in `ref_files` and keeps its own meta in `ref_meta`; the git blob
 * id of each version is in `version_blobs`. The store-wide meta keeps only
 * what is not one index's (`STORE_META_KEYS`).
 */
export const REF_POOL_SQL = `
  DROP VIEW symbols; DROP VIEW edges; DROP VIEW chunks;
  ${
  FILES_TABLE_SQL.replace("CREATE TABLE files", "CREATE TABLE file_versions").replace("NOT NULL UNIQUE", "NOT NULL")
    .replace("id INTEGER PRIMARY KEY", "id INTEGER PRIMARY KEY AUTOINCREMENT")
}
  INSERT INTO file_versions(${FILE_COLUMNS}) SELECT ${FILE_COLUMNS} FROM files;
  DROP TABLE files;
  ALTER TABLE file_versions RENAME TO files;
  CREATE INDEX files_path ON files(path);
  ${ROW_VIEWS_SQL}
  DROP TABLE IF EXISTS file_blobs;
  CREATE TABLE ref_commits (id INTEGER PRIMARY KEY, commit_id TEXT NOT NULL UNIQUE);
  CREATE TABLE ref_files (ref_id INTEGER NOT NULL, file_id INTEGER NOT NULL, PRIMARY KEY (ref_id, file_id))
    WITHOUT ROWID;
  CREATE INDEX ref_files_file ON ref_files(file_id);
  CREATE TABLE ref_meta (ref_id INTEGER NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,
    PRIMARY KEY (ref_id, key)) WITHOUT ROWID;
  CREATE TABLE version_blobs (file_id INTEGER PRIMARY KEY, blob TEXT NOT NULL);
  ${REF_SKIPPED_BLOBS_SQL}
  -- A path has about one version: told to the planner (no ANALYZE is run), which would otherwise take the
  -- index for any path as unselective and drive reads of one file's symbols from another index.
  ANALYZE sqlite_schema;
  DELETE FROM sqlite_stat1 WHERE tbl = 'files';
  INSERT INTO sqlite_stat1(tbl, idx, stat) VALUES ('files', 'files_path', '100000 1');
  -- The files a seeded store holds (list 0, the writer's SEED_REF) and their index's meta.
  INSERT INTO ref_files(ref_id, file_id) SELECT 0, id FROM files;
  INSERT INTO ref_meta(ref_id, key, value) SELECT 0, key, value FROM meta
    WHERE key NOT IN (${STORE_META_KEYS});
  DELETE FROM meta WHERE key NOT IN (${STORE_META_KEYS});`;

/**
 * Per-connection (TEMP) objects that make a refs store read as the index of
 * one commit (`ref_id`): `files`, `symbols`, `edges`, `chunks` and `refs`
 * hold only the commit's versions and `meta` is the commit's. TEMP names come
 * before the store's in every unqualified read, so every query keeps its SQL;
 * the store's own views stay bound to its tables. The commit's files are a
 * correlated EXISTS, not an IN list: the planner then still drives each read
 * from the store's indexes and checks membership per row, where an IN list
 * would walk the whole list for every lookup by path.
 */
export function refScopeSql(refId: number): string {
  const id = Math.trunc(refId);
  const views = ROW_VIEWS_SQL.replaceAll("CREATE VIEW", "CREATE TEMP VIEW")
    .replace(/FROM (symbol|edge|chunk)_rows/g, "FROM main.$1_rows")
    .replaceAll("JOIN files f ON f.id", "JOIN temp.files f ON f.id");
  return `
    CREATE TEMP TABLE ref_manifest (file_id INTEGER PRIMARY KEY);
    INSERT INTO temp.ref_manifest SELECT file_id FROM main.ref_files WHERE ref_id = ${id};
    CREATE TEMP VIEW files AS SELECT * FROM main.files
      WHERE EXISTS (SELECT 1 FROM temp.ref_manifest m WHERE m.file_id = main.files.id);
    ${views}
    CREATE TEMP VIEW refs AS SELECT * FROM main.refs
      WHERE EXISTS (SELECT 1 FROM temp.ref_manifest m WHERE m.file_id = main.refs.file_id);
    CREATE TEMP TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    INSERT INTO temp.meta SELECT key, value FROM main.meta;
    INSERT OR REPLACE INTO temp.meta SELECT key, value FROM main.ref_meta WHERE ref_id = ${id};`;
}

/** The full-text tables and the row table whose ids their rowids are (`files_fts` rows are files). */
const FTS_ROWS = { chunks_fts: "chunk_rows", symbols_fts: "symbol_rows", files_fts: null } as const;

/**
 * The join that keeps, on a connection scoped to one commit (`refScopeSql`),
 * only the rows of full-text table `fts` that are that commit's: a probe of
 * the commit's file list per match, cheaper than joining the scoped views.
 */
export function commitRowsJoin(fts: keyof typeof FTS_ROWS): string {
  const rows = FTS_ROWS[fts];
  return rows
    ? ` JOIN main.${rows} cm_r ON cm_r.id = ${fts}.rowid JOIN temp.ref_manifest cm_m ON cm_m.file_id = cm_r.file_id`
    : ` JOIN temp.ref_manifest cm_m ON cm_m.file_id = ${fts}.rowid`;
}

/** SQL creating the given secondary indexes (default: all of them). */
export function createSecondaryIndexesSql(indexes = SECONDARY_INDEXES): string {
  return indexes.map(([n, on]) => `CREATE INDEX IF NOT EXISTS ${n} ON ${on};`).join("\n");
}

/** One migration: SQL, or a step that needs more than SQL (it runs inside the same transaction). */
export type Migration = string | ((db: Db) => void);

/**
 * The name trigram table since schema 14: no positions (`detail=none`: a
 * lookup matches one trigram at a time, never a phrase) and no per-row sizes
 * (`columnsize=0`: nothing ranks it). Without the sizes it cannot delete by
 * row id alone: a name's row is deleted by giving its text again (see
 * `NameTableWriter`). Less than a third of the bytes of schema 3's table.
 */
const NAME_GRAMS_SQL = `CREATE VIRTUAL TABLE symbol_names_fts USING fts5(grams, content='', columnsize=0,
  detail=none, tokenize='trigram');`;

/** Schema 14's rebuild of the trigram table from the names it indexes (see NAME_GRAMS_SQL). */
function slimNameGrams(db: Db): void {
  db.function("cruxe_name_grams", { deterministic: true }, (n) => gramText(String(n)));
  db.exec(`DROP TABLE symbol_names_fts;
    ${NAME_GRAMS_SQL}
    INSERT INTO symbol_names_fts(rowid, grams) SELECT id, cruxe_name_grams(name_lower) FROM symbol_names;
    INSERT INTO symbol_names_fts(symbol_names_fts) VALUES ('optimize');`);
}

/**
 * Schema 25's rewrite of the references in name order, with each file's
 * list of names (see REFS_SQL_25). Every row is carried over; the pages are
 * left about seven-eighths full (a bulk load's copy packs them, see
 * `IndexWriter.endBulkLoad`).
 */
function refsByName(db: Db): void {
  db.exec(REF_FILE_NAMES_SQL);
  fillRefFileNames(db, "refs");
  db.exec(`${REFS_SQL_25.replace("CREATE TABLE refs", "CREATE TABLE refs25")}
    INSERT INTO refs25 SELECT ${REF_COLUMNS} FROM refs ORDER BY name_id, file_id, line, col;
    DROP TABLE refs;
    ALTER TABLE refs25 RENAME TO refs;`);
}

/** Schema 23's trigram lists, packed (see `name_grams.ts`) in place of the FTS5 table. */
function packedNameGrams(db: Db): void {
  db.exec(`DROP TABLE symbol_names_fts; ${PACKED_NAME_GRAMS_SQL}`);
  buildNameGrams(db, gramText);
}

/**
 * Schema `v`'s rewrite of the symbol rows whose handles the view spells
 * (see SPELLED_KEY_BYTES): a row keeps the first bytes of its symbol key
 * when spelling it from its path, stable id and line gives it, and no
 * stable key when spelling it from its other columns gives it.
 */
function spellableHandlesSql(v: number): string {
  return `UPDATE symbol_rows AS s SET symbol_key = substr(s.symbol_key, 1, ${KEPT_KEY_BYTES}) FROM files f
     WHERE f.id = s.file_id
       AND cruxe_symbol_id(f.path, ${STABLE_ID_SQL("s.stable_key")}, s.line_start) = ${SYMBOL_ID_SQL("s.symbol_key")};
   UPDATE symbol_rows AS s SET stable_key = x'' FROM files f
     WHERE f.id = s.file_id AND ${spelledStableIdSql("s", "f", v)} = ${STABLE_ID_SQL("s.stable_key")};`;
}

/**
 * The references since schema 20 (as since 6 otherwise): `source_id`, the
 * symbol the occurrence sits in, is its place among its file's symbols
 * (its row id less the file's `sym_lo`), a byte or none where a row id
 * takes three; a read adds the file's `sym_lo` back (`REF_SOURCE_SQL`).
 */
const REFS_SQL = `CREATE TABLE refs (
  file_id INTEGER NOT NULL, line INTEGER NOT NULL, col INTEGER NOT NULL, name_id INTEGER NOT NULL,
  kind INTEGER NOT NULL, qual_id INTEGER, source_id INTEGER, hint_id INTEGER,
  PRIMARY KEY (file_id, line, col)
) WITHOUT ROWID;`;

/**
 * The references since schema 25: in the order of their name, so every read
 * by name (the reads that answer `find_references`) is one range of the
 * table, and no index of the names repeats each row's key (a third of the
 * references' bytes). A file's occurrences are found through the list of
 * names it has (`ref_file_names`, see `src/state/ref_file_names.ts`).
 */
export const REFS_SQL_25 = `CREATE TABLE refs (
  name_id INTEGER NOT NULL, file_id INTEGER NOT NULL, line INTEGER NOT NULL, col INTEGER NOT NULL,
  kind INTEGER NOT NULL, qual_id INTEGER, source_id INTEGER, hint_id INTEGER,
  PRIMARY KEY (name_id, file_id, line, col)
) WITHOUT ROWID;`;

/** The columns of `refs` since schema 25, its key's first. */
export const REF_COLUMNS = "name_id, file_id, line, col, kind, qual_id, source_id, hint_id";

/**
 * Where a bulk load's references go as files are written: schema 20's
 * table, in file order, as they arrive (an insert into `refs`, in name
 * order, would land anywhere in the table); sorted into `refs` once at the
 * end (`IndexWriter.endBulkLoad`).
 */
export const REFS_LOAD_SQL = REFS_SQL.replace("CREATE TABLE refs", "CREATE TABLE refs_load");

/** Each file's distinct occurrence names since schema 25, packed (see `src/state/ref_file_names.ts`). */
export const REF_FILE_NAMES_SQL = "CREATE TABLE ref_file_names (file_id INTEGER PRIMARY KEY, ids BLOB NOT NULL);";

/** SQL giving the row id of the symbol reference row `r` (of file row `f`) sits in (see REFS_SQL). */
export const REF_SOURCE_SQL = (r: string, f: string): string => `${f}.sym_lo + ${r}.source_id`;

/**
 * Schema 27's fold of a store's call edges: each call edge that a call
 * reference states (matched as `foldCallEdges` matches them: same file,
 * line, name and enclosing symbol; the leftmost such reference) becomes that
 * reference's kind, and its edge row goes, with the targets no edge names
 * any more.
 */
const FOLD_CALL_EDGES_SQL = `
  CREATE TEMP TABLE folded_edges AS
    SELECT e.id AS edge_id, r.name_id AS name_id, r.file_id AS file_id, r.line AS line, min(r.col) AS col
    FROM edge_rows e JOIN edge_targets t ON t.id = e.target_id
      JOIN ref_names n ON ${FOLD_KEY_SQL("n.name")} = ${FOLD_KEY_SQL("t.name")} AND n.name = t.name
      JOIN files f ON f.id = e.file_id
      JOIN refs r ON r.name_id = n.id AND r.file_id = e.file_id AND r.line = e.line
    WHERE e.kind = '${wordCode(EDGE_KIND_WORDS, "calls")}' AND r.kind = ${CALL_KIND}
      AND ${REF_SOURCE_SQL("r", "f")} IS e.source_id
    GROUP BY e.id;
  UPDATE refs SET kind = ${CALL_EDGE_KIND}
    WHERE (name_id, file_id, line, col) IN (SELECT name_id, file_id, line, col FROM temp.folded_edges);
  DELETE FROM edge_rows WHERE id IN (SELECT edge_id FROM temp.folded_edges);
  DELETE FROM edge_targets WHERE id NOT IN (SELECT target_id FROM edge_rows);
  DROP TABLE temp.folded_edges;`;

/** Project index migrations; index i brings an index to version i + 1. */
export const PROJECT_MIGRATIONS: Migration[] = [
  `CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
   CREATE TABLE files (
     path TEXT PRIMARY KEY,
     hash TEXT NOT NULL,
     size INTEGER NOT NULL,
     mtime_ms INTEGER NOT NULL,
     language TEXT NOT NULL,
     line_count INTEGER NOT NULL,
     symbol_count INTEGER NOT NULL,
     parse_error TEXT
   );
   CREATE TABLE symbols (
     id INTEGER PRIMARY KEY,
     path TEXT NOT NULL,
     name TEXT NOT NULL,
     name_lower TEXT NOT NULL,
     qualified_name TEXT NOT NULL,
     kind TEXT NOT NULL,
     language TEXT NOT NULL,
     signature TEXT NOT NULL,
     doc TEXT,
     visibility TEXT,
     line_start INTEGER NOT NULL,
     line_end INTEGER NOT NULL,
     parent_id INTEGER,
     stable_id TEXT NOT NULL,
     symbol_id TEXT NOT NULL
   );
   CREATE TABLE edges (
     id INTEGER PRIMARY KEY,
     path TEXT NOT NULL,
     kind TEXT NOT NULL,
     source_id INTEGER,
     target TEXT NOT NULL,
     target_lower TEXT NOT NULL,
     line INTEGER NOT NULL
   );
   CREATE TABLE chunks (
     id INTEGER PRIMARY KEY,
     path TEXT NOT NULL,
     line_start INTEGER NOT NULL,
     line_end INTEGER NOT NULL,
     symbol_row INTEGER,
     language TEXT NOT NULL,
     content TEXT NOT NULL
   );
   CREATE VIRTUAL TABLE chunks_fts USING fts5(body, path, content='', contentless_delete=1,
     tokenize='unicode61 remove_diacritics 2');
   CREATE VIRTUAL TABLE symbols_fts USING fts5(name, qualified, detail, content='', contentless_delete=1,
     tokenize='unicode61 remove_diacritics 2');
   CREATE VIRTUAL TABLE files_fts USING fts5(path, names, content='', contentless_delete=1,
     tokenize='unicode61 remove_diacritics 2');
   ${createSecondaryIndexesSql(FIRST_INDEXES)}`,
  // The reference index: identifier occurrences keyed by an interned name, clustered by file so a changed
  // file's rows are one range. The older store held no occurrences, so its contents are dropped and the
  // next index run rebuilds everything (until then readers see schema 1 and answer reindex_required).
  `DELETE FROM files; DELETE FROM symbols; DELETE FROM edges; DELETE FROM chunks;
   INSERT INTO chunks_fts(chunks_fts) VALUES ('delete-all');
   INSERT INTO symbols_fts(symbols_fts) VALUES ('delete-all');
   INSERT INTO files_fts(files_fts) VALUES ('delete-all');
   DELETE FROM meta WHERE key IN ('last_indexed_at', 'published_at_ms', 'file_count', 'symbol_count');
   CREATE TABLE ref_names (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
   CREATE TABLE refs (
     file_id INTEGER NOT NULL,
     line INTEGER NOT NULL,
     col INTEGER NOT NULL,
     name_id INTEGER NOT NULL,
     kind INTEGER NOT NULL,
     qual_id INTEGER,
     source_id INTEGER,
     PRIMARY KEY (file_id, line, col)
   ) WITHOUT ROWID;
   CREATE INDEX IF NOT EXISTS refs_name ON refs(name_id);`,
  // Distinct symbol names and their trigrams: name lookups read these instead of building anything in memory.
  // Files a generator wrote are flagged (ranked below hand-written code, still found by name).
  `${NAME_TABLES_SQL}
   ALTER TABLE files ADD COLUMN generated INTEGER NOT NULL DEFAULT 0;`,
  // No query looks a symbol up by its stable id (it is only shown): its index was a tenth of the symbols' bytes.
  DROPPED_INDEXES.map((n) => `DROP INDEX IF EXISTS ${n};`).join("\n"),
  // Slimmer rows behind views of the old tables (see ROW_TABLES_SQL); every row is carried over. Rows name their
  // file by id, so the file id becomes a declared INTEGER PRIMARY KEY (VACUUM renumbers an implicit rowid).
  `${FILES_TABLE_SQL_5.replace("CREATE TABLE files", "CREATE TABLE files5")}
   INSERT INTO files5(id, path, hash, size, mtime_ms, language, line_count, symbol_count, parse_error, generated)
     SELECT rowid, path, hash, size, mtime_ms, language, line_count, symbol_count, parse_error, generated FROM files;
   DROP TABLE files;
   ALTER TABLE files5 RENAME TO files;
   ${ROW_TABLES_SQL}
   INSERT INTO symbol_rows
     SELECT s.id, f.rowid, s.name, nullif(s.name_lower, lower(s.name)), nullif(s.qualified_name, s.name), s.kind,
       s.signature, s.doc, s.visibility, s.line_start, s.line_end, s.parent_id, s.stable_id, s.symbol_id
     FROM symbols s JOIN files f ON f.path = s.path;
   INSERT INTO edge_rows
     SELECT e.id, f.rowid, e.kind, e.source_id, e.target, nullif(e.target_lower, lower(e.target)), e.line
     FROM edges e JOIN files f ON f.path = e.path;
   INSERT INTO chunk_rows
     SELECT c.id, f.rowid, c.line_start, c.line_end, c.symbol_row, c.content
     FROM chunks c JOIN files f ON f.path = c.path;
   DROP TABLE symbols;
   DROP TABLE edges;
   DROP TABLE chunks;
   ${symbolsViewSql(5)}${edgesViewSql(5)}${chunksViewSql(5)}
   ${createSecondaryIndexesSql(ROW_TABLE_INDEXES_5)}
   -- Names by compact length, covering: the short-name scan of fuzzy lookups reads no table row.
   DROP INDEX symbol_names_clen;
   CREATE INDEX symbol_names_clen ON symbol_names(clen, name_lower);`,
  // Each occurrence keeps what its file's declarations say its qualifier is (an interned hint, see
  // src/index/extract/go_scope.ts). Older rows have none, so every file reads as changed and the next sync
  // extracts it again.
  `ALTER TABLE refs ADD COLUMN hint_id INTEGER;
   UPDATE files SET size = -1, hash = '';`,
  // A chunk's text may be left to its file (NULL: the working tree's files are read back and verified by digest):
  // the column loses NOT NULL. Stored text is carried over and still served; a file written again stores none.
  `DROP VIEW chunks;
   CREATE TABLE chunk_rows7 (
     id INTEGER PRIMARY KEY, file_id INTEGER NOT NULL, line_start INTEGER NOT NULL, line_end INTEGER NOT NULL,
     symbol_row INTEGER, content TEXT
   );
   INSERT INTO chunk_rows7 SELECT id, file_id, line_start, line_end, symbol_row, content FROM chunk_rows;
   DROP TABLE chunk_rows;
   ALTER TABLE chunk_rows7 RENAME TO chunk_rows;
   ${chunksViewSql(7)}
   ${createSecondaryIndexesSql(ROW_TABLE_INDEXES_5.filter(([n]) => n === "chunks_path"))}`,
  // A symbol's handles are kept as the bytes their hex digits spell (see symbol_keys.ts), less than half their
  // text and the same for the handle index; the view spells them back. Every row is carried over.
  `DROP VIEW symbols;
   ALTER TABLE symbol_rows RENAME COLUMN symbol_id TO symbol_key;
   ALTER TABLE symbol_rows RENAME COLUMN stable_id TO stable_key;
   UPDATE symbol_rows SET symbol_key = unhex(substr(symbol_key, 5)), stable_key = unhex(substr(stable_key, 4));
   ${symbolsViewSql(8)}`,
  // A symbol's kind and visibility and an edge's kind are kept as short codes (see coded_words.ts), each a byte
  // or two where the word took five to eleven, in the rows and in the edge target index alike.
  `DROP VIEW symbols;
   DROP VIEW edges;
   UPDATE symbol_rows SET kind = ${codeSql(SYMBOL_KIND_WORDS, "kind")},
     visibility = ${codeSql(VISIBILITY_WORDS, "visibility")};
   UPDATE edge_rows SET kind = ${codeSql(EDGE_KIND_WORDS, "kind")};
   ${symbolsViewSql(9)}${edgesViewSql(9)}`,
  // A name qualified by a dot keeps only its qualifier (the name follows it): a tenth of the symbol rows' text.
  `DROP VIEW symbols;
   ALTER TABLE symbol_rows ADD COLUMN qualifier TEXT;
   UPDATE symbol_rows SET qualifier = substr(qualified_name, 1, length(qualified_name) - length(name) - 1),
     qualified_name = NULL
   WHERE substr(qualified_name, -length(name) - 1) = '.' || name;
   ${symbolsViewSql(10)}`,
  // Symbols by parent: only those that have one.
  `DROP INDEX symbols_parent;
   ${createSecondaryIndexesSql(ROW_TABLE_INDEXES.filter(([n]) => n === "symbols_parent"))}`,
  // A file's rows are found by their id ranges (see FILE_RANGES), not by three indexes of their file id.
  `DROP VIEW symbols;
   DROP VIEW edges;
   DROP VIEW chunks;
   ${FILE_RANGES.map((c) => `ALTER TABLE files ADD COLUMN ${c} INTEGER;`).join("\n")}
   ${FILL_FILE_RANGES_SQL}
   DROP INDEX symbols_path;
   DROP INDEX edges_path;
   DROP INDEX chunks_path;
   ${symbolsViewSql(12)}${edgesViewSql(12)}${chunksViewSql(12)}`,
  // Signatures and docs keep a placeholder where they first repeat the symbol's name (see name_in_text.ts).
  `DROP VIEW symbols;
   UPDATE symbol_rows SET signature = ${textWithoutNameSql("signature", "name")}, doc = ${
    textWithoutNameSql("doc", "name")
  };
   ${symbolsViewSql(13)}`,
  // The name trigram table keeps neither positions nor row sizes (see NAME_GRAMS_SQL): rebuilt from the names.
  slimNameGrams,
  // The handle index holds the first bytes of each key, not all twelve (see symbol_keys.ts).
  `DROP INDEX symbols_sid;
   ${createSecondaryIndexesSql(ROW_TABLE_INDEXES.filter(([n]) => n === "symbols_sid"))}`,
  // Edges name their target by id; each target spelling is kept once (see EDGE_TARGETS_SQL). Every row carried over.
  `DROP VIEW edges;
   ${EDGE_TARGETS_SQL}
   INSERT INTO edge_targets(name, name_lower)
     SELECT target, max(target_lower) FROM edge_rows GROUP BY target ORDER BY min(id);
   ALTER TABLE edge_rows RENAME TO edge_rows15;
   ${EDGE_ROWS_16_SQL}
   INSERT INTO edge_rows(id, file_id, kind, source_id, target_id, line)
     SELECT e.id, e.file_id, e.kind, e.source_id, t.id, e.line FROM edge_rows15 e
     JOIN edge_targets t ON coalesce(t.name_lower, lower(t.name)) = coalesce(e.target_lower, lower(e.target))
       AND t.name = e.target
     ORDER BY e.id;
   DROP TABLE edge_rows15;
   ${createSecondaryIndexesSql(ROW_TABLE_INDEXES.filter(([n]) => n.startsWith("edges_")))}
   ${edgesViewSql(16)}`,
  // Symbols and chunks keep their last line as a distance from the first (see lineEndSql).
  `DROP VIEW symbols;
   DROP VIEW chunks;
   ALTER TABLE symbol_rows RENAME COLUMN line_end TO line_span;
   ALTER TABLE chunk_rows RENAME COLUMN line_end TO line_span;
   UPDATE symbol_rows SET line_span = line_span - line_start;
   UPDATE chunk_rows SET line_span = line_span - line_start;
   ${symbolsViewSql(17)}${chunksViewSql(17)}`,
  // Symbols keep no handle the view can spell from the row (see SPELLED_KEY_BYTES): checked row by row.
  `DROP VIEW symbols;
   ${spellableHandlesSql(18)}
   ${symbolsViewSql(18)}`,
  // Edges by target id alone (see LATER_INDEXES).
  `DROP INDEX edges_target;
   ${createSecondaryIndexesSql(ROW_TABLE_INDEXES.filter(([n]) => n === "edges_target"))}`,
  // A reference names its enclosing symbol by its place among its file's symbols (see REFS_SQL); rewritten whole.
  `${REFS_SQL.replace("CREATE TABLE refs", "CREATE TABLE refs20")}
   INSERT INTO refs20(file_id, line, col, name_id, kind, qual_id, source_id, hint_id)
     SELECT r.file_id, r.line, r.col, r.name_id, r.kind, r.qual_id, r.source_id - f.sym_lo, r.hint_id
     FROM refs r LEFT JOIN files f ON f.id = r.file_id ORDER BY r.file_id, r.line, r.col;
   DROP TABLE refs;
   ALTER TABLE refs20 RENAME TO refs;
   ${REFS_NAME_INDEX_SQL}`,
  // Symbols by the key of their lower-case name (see name_key.ts): reads by name match the key, then the name.
  `DROP VIEW symbols;
   DROP INDEX symbols_name;
   ${createSecondaryIndexesSql(ROW_TABLE_INDEXES.filter(([n]) => n === "symbols_name"))}
   ${symbolsViewSql(21)}`,
  // The name tables' length indexes hold only the names their reads ask for (see NAME_LENGTH_INDEXES_SQL).
  `DROP INDEX symbol_names_clen;
   DROP INDEX symbol_names_len;
   ${NAME_LENGTH_INDEXES_SQL}`,
  // The names' trigram lists are packed in a plain table (see name_grams.ts), built from the names; the FTS5
  // trigram table goes.
  packedNameGrams,
  // The chunk terms common enough to be costly to count, counted once (see common_terms.ts).
  (db) => {
    db.exec(COMMON_TERMS_SQL);
    recordCommonTerms(db);
  },
  // References in the order of their name, without a name index; each file lists its names (see REFS_SQL_25).
  refsByName,
  // A signature's or doc's leading `#define ` is kept as one character (see name_in_text.ts): only the rows it changes.
  `DROP VIEW symbols;
   UPDATE symbol_rows SET signature = ${withDefineMarkSql("signature", "name")}
     WHERE ${changedByDefineMarkSql("signature")};
   UPDATE symbol_rows SET doc = ${withDefineMarkSql("doc", "name")} WHERE ${changedByDefineMarkSql("doc")};
   ${symbolsViewSql(26)}`,
  // A call edge that a call reference states is kept once, as that reference (see call_edges.ts); reference names
  // are found by the key of their lower case (see REF_NAMES_SQL).
  `ALTER TABLE ref_names RENAME TO ref_names26;
   ${REF_NAMES_SQL}
   INSERT INTO ref_names(id, name) SELECT id, name FROM ref_names26 ORDER BY id;
   DROP TABLE ref_names26;
   ${FOLD_CALL_EDGES_SQL}`,
  // Symbol names keep no unique index: the ids in name order are found by a binary search, the others through
  // an index of them alone (see sorted_names.ts). Every row keeps its id (the trigram lists name them).
  (db) => {
    db.exec(`ALTER TABLE symbol_names RENAME TO symbol_names27;
      DROP INDEX symbol_names_clen;
      DROP INDEX symbol_names_len;
      ${SYMBOL_NAMES_SQL}
      INSERT INTO symbol_names(id, name_lower, len, clen, count)
        SELECT id, name_lower, len, clen, count FROM symbol_names27 ORDER BY id;
      DROP TABLE symbol_names27;
      ${NAME_LENGTH_INDEXES_SQL}`);
    markSortedNames(db);
  },
];

/** The schema version a store records (0 before its first migration). */
function recordedVersion(db: Db): number {
  try {
    return Number(getMeta(db, "schema_version") ?? "0");
  } catch {
    return 0; // no meta table yet
  }
}

/**
 * Brings a store to the newest schema; refuses a store newer than this
 * build. An upgrade runs with temporary storage in files (SQLite's
 * `temp_store`) where there is a directory for them, set back as it was
 * after: a step that rewrites a whole table keeps a statement journal of
 * its pages, the size of the table (a GiB of the kernel's symbol rows),
 * which would otherwise sit in memory.
 */
export function migrate(db: Db, migrations: readonly Migration[]): void {
  const upgrade = recordedVersion(db) < migrations.length;
  if (upgrade) registerStoreFunctions(db); // later steps spell handles (see SPELLED_KEY_BYTES) and build the name index
  // With nowhere to write temporary files, temporary storage stays in memory (see spill_dir.ts).
  const toFiles = upgrade && canSpillSorts();
  const before = Number((db.prepare("PRAGMA temp_store").get() as { temp_store: number }).temp_store);
  if (toFiles) db.exec("PRAGMA temp_store=FILE");
  try {
    migrateInOne(db, migrations);
  } finally {
    if (toFiles) db.exec(`PRAGMA temp_store=${before}`);
  }
}

function migrateInOne(db: Db, migrations: readonly Migration[]): void {
  // Every step in one transaction: a reader never sees a store half created or half upgraded (an older schema
  // number mid-way would read as an index an older Cruxe wrote).
  transaction(db, () => {
    db.exec("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
    const current = Number(getMeta(db, "schema_version") ?? "0");
    if (current > migrations.length) {
      throw new Error(`store schema ${current} is newer than this build (${migrations.length})`);
    }
    for (let v = current; v < migrations.length; v++) {
      const step = migrations[v];
      if (typeof step === "string") db.exec(step);
      else step(db);
    }
    if (current < migrations.length) setMeta(db, "schema_version", String(migrations.length));
  });
}

/** Classifies a project index's schema against this build's. */
export function projectSchemaStatus(db: Db | null): { status: SchemaStatus; current: number } {
  if (!db) return { status: "not_indexed", current: 0 };
  try {
    const v = getMeta(db, "schema_version");
    if (v === null) return { status: "corrupt_manifest", current: 0 };
    const current = Number(v);
    if (!Number.isInteger(current)) return { status: "corrupt_manifest", current: 0 };
    if (current !== SCHEMA_VERSION) return { status: "reindex_required", current };
    return { status: "compatible", current };
  } catch {
    return { status: "corrupt_manifest", current: 0 };
  }
}
