/** Test helpers: temporary Cruxe homes and copies of fixture repositories. */
import { CALL_EDGE_KIND, CALL_KIND } from "../../src/state/call_edges.ts";
import { NAMES_SORTED } from "../../src/state/sorted_names.ts";
import { NAME_LENGTH_INDEXES_SQL } from "../../src/state/name_lookup.ts";
import { join } from "node:path";
import { type CruxeConfig, resolveConfig } from "../../src/core/config.ts";
import { Registry } from "../../src/state/registry.ts";
import { registerProject } from "../../src/index/project_setup.ts";
import { JobRunner } from "../../src/index/job_runner.ts";
import type { ProjectRow } from "../../src/state/registry.ts";
import { IndexReaders, requireIndex } from "../../src/query/index_reader.ts";
import { type Db, setMeta } from "../../src/state/db.ts";
import { indexPath, openIndexForRead } from "../../src/state/project_index.ts";
import { storeSeedChunkText } from "../../src/state/write/ref_seed_text.ts";
import { chunksViewSql, edgesViewSql, symbolsViewSql } from "../../src/state/schema.ts";
import { textWithNameSql } from "../../src/state/name_in_text.ts";
import { EDGE_KIND_WORDS, SYMBOL_KIND_WORDS, VISIBILITY_WORDS, wordSql } from "../../src/state/coded_words.ts";
import { tempDir } from "./temp_dir.ts";

const FIXTURES = new URL("../../fixtures/repos/", import.meta.url);

/** Copies a fixture repository into a fresh temporary directory; returns its path. */
export function copyFixture(name: string, opts: { git?: boolean } = {}): string {
  const dest = tempDir(`cruxe-${name}-`);
  copyDir(new URL(name + "/", FIXTURES).pathname, dest);
  if (opts.git) git(dest, "init", "-q", "-b", "main"), commitAll(dest, "initial");
  return dest;
}

function copyDir(src: string, dest: string): void {
  for (const e of Deno.readDirSync(src)) {
    const s = join(src, e.name);
    const d = join(dest, e.name);
    if (e.isDirectory) {
      Deno.mkdirSync(d, { recursive: true });
      copyDir(s, d);
    } else if (e.isFile) Deno.copyFileSync(s, d);
  }
}

/** Runs git in `dir` (test identity, no user config). */
export function git(dir: string, ...args: string[]): string {
  const out = new Deno.Command("git", {
    args: ["-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false", ...args],
    stdout: "piped",
    stderr: "piped",
  }).outputSync();
  if (!out.success) throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  return new TextDecoder().decode(out.stdout);
}

/** Stages and commits everything. */
export function commitAll(dir: string, message: string): void {
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", message);
}

/** A temporary Cruxe home with its registry and a job runner. */
export interface TestHome {
  home: string;
  config: CruxeConfig;
  registry: Registry;
  runner: JobRunner;
  close(): void;
}

/** Creates a temporary Cruxe home. */
export function tempHome(overrides: Partial<CruxeConfig> = {}): TestHome {
  const home = tempDir("cruxe-home-");
  const config = { ...resolveConfig({ CRUXE_HOME: home }, Deno.build.os), ...overrides };
  const registry = Registry.open(home);
  const runner = new JobRunner(registry, config);
  return {
    home,
    config,
    registry,
    runner,
    close() {
      runner.shutdown();
      registry.close();
    },
  };
}

/** Registers `dir` and runs one index job to its end. */
export async function indexDir(
  h: TestHome,
  dir: string,
  opts: { mode?: "full" | "incremental"; force?: boolean } = {},
): Promise<{ project: ProjectRow; status: string }> {
  const project = registerProject(h.registry, dir);
  const { active } = h.runner.start(project, { mode: opts.mode ?? "full", force: opts.force ?? false });
  const job = await active.done;
  return { project, status: job.status };
}

/** Runs `f` on a fresh reader of a project's published index, closing it after. */
export function withIndex<T>(h: TestHome, projectId: string, f: (db: Db) => T): T {
  const readers = new IndexReaders(h.registry);
  try {
    return f(requireIndex(readers.view(h.registry.getProject(projectId)!)));
  } finally {
    readers.closeAll();
  }
}

/** Writes `files` (repository-relative path → text) into a new temporary directory; returns the directory. */
export function writeTree(files: Record<string, string>): string {
  const dir = tempDir("cruxe-tree-");
  for (const [rel, text] of Object.entries(files)) {
    Deno.mkdirSync(join(dir, rel, ".."), { recursive: true });
    Deno.writeTextFileSync(join(dir, rel), text);
  }
  return dir;
}

/** Indexes the tree of `files` in a fresh home and runs `f` on its published index (the run must publish). */
export async function withIndexedTree<T>(files: Record<string, string>, f: (db: Db) => T): Promise<T> {
  const h = tempHome();
  try {
    const { project, status } = await indexDir(h, writeTree(files));
    if (status !== "published") throw new Error(`the index of the test tree ended ${status}`);
    return withIndex(h, project.project_id, f);
  } finally {
    h.close();
  }
}

/**
 * SQL giving a store the files, symbols, edges and chunks tables of schemas
 * 1-4 (each row with its file's path and every name column; files keyed by
 * path) in place of schema 5's tables and views, rows carried over.
 */
export const SCHEMA4_ROWS_SQL = `
  CREATE TABLE symbols4 AS SELECT * FROM symbols;
  CREATE TABLE edges4 AS SELECT * FROM edges;
  CREATE TABLE chunks4 AS SELECT * FROM chunks;
  DROP VIEW symbols; DROP VIEW edges; DROP VIEW chunks;
  DROP TABLE symbol_rows; DROP TABLE edge_rows; DROP TABLE chunk_rows;
  CREATE TABLE symbols (
    id INTEGER PRIMARY KEY, path TEXT NOT NULL, name TEXT NOT NULL, name_lower TEXT NOT NULL,
    qualified_name TEXT NOT NULL, kind TEXT NOT NULL, language TEXT NOT NULL, signature TEXT NOT NULL, doc TEXT,
    visibility TEXT, line_start INTEGER NOT NULL, line_end INTEGER NOT NULL, parent_id INTEGER,
    stable_id TEXT NOT NULL, symbol_id TEXT NOT NULL);
  CREATE TABLE edges (id INTEGER PRIMARY KEY, path TEXT NOT NULL, kind TEXT NOT NULL, source_id INTEGER,
    target TEXT NOT NULL, target_lower TEXT NOT NULL, line INTEGER NOT NULL);
  CREATE TABLE chunks (id INTEGER PRIMARY KEY, path TEXT NOT NULL, line_start INTEGER NOT NULL,
    line_end INTEGER NOT NULL, symbol_row INTEGER, language TEXT NOT NULL, content TEXT NOT NULL);
  INSERT INTO symbols SELECT * FROM symbols4;
  INSERT INTO edges SELECT * FROM edges4;
  INSERT INTO chunks SELECT * FROM chunks4;
  DROP TABLE symbols4; DROP TABLE edges4; DROP TABLE chunks4;
  CREATE TABLE files4 (path TEXT PRIMARY KEY, hash TEXT NOT NULL, size INTEGER NOT NULL, mtime_ms INTEGER NOT NULL,
    language TEXT NOT NULL, line_count INTEGER NOT NULL, symbol_count INTEGER NOT NULL, parse_error TEXT,
    generated INTEGER NOT NULL DEFAULT 0);
  INSERT INTO files4(rowid, path, hash, size, mtime_ms, language, line_count, symbol_count, parse_error, generated)
    SELECT id, path, hash, size, mtime_ms, language, line_count, symbol_count, parse_error, generated FROM files;
  DROP TABLE files;
  ALTER TABLE files4 RENAME TO files;
  CREATE INDEX symbols_name ON symbols(name_lower);
  CREATE INDEX symbols_path ON symbols(path, line_start);
  CREATE INDEX symbols_parent ON symbols(parent_id);
  CREATE INDEX symbols_sid ON symbols(symbol_id);
  CREATE INDEX edges_target ON edges(target_lower, kind);
  CREATE INDEX edges_source ON edges(source_id);
  CREATE INDEX edges_path ON edges(path);
  CREATE INDEX chunks_path ON chunks(path, line_start);`;

/** SQL giving a store schema 20's name index (of the lower-case names) in place of schema 21's. */
export const SCHEMA20_NAME_INDEX_SQL = `
  DROP VIEW symbols;
  DROP INDEX symbols_name;
  CREATE INDEX symbols_name ON symbol_rows(coalesce(name_lower, lower(name)));
  ${symbolsViewSql(20)}`;

/** SQL giving a store schema 19's references (enclosing symbols by row id) in place of schema 20's. */
export const SCHEMA19_REF_SOURCES_SQL = `
  UPDATE refs SET source_id = source_id + (SELECT sym_lo FROM files f WHERE f.id = refs.file_id);`;

/** SQL giving a store schema 18's edge target index (target id and kind) in place of schema 19's. */
export const SCHEMA18_EDGE_TARGET_SQL = `
  DROP INDEX edges_target;
  CREATE INDEX edges_target ON edge_rows(target_id, kind);`;

/** SQL giving a store schema 17's symbol rows (every handle kept whole) in place of schema 18's. */
export const SCHEMA17_HANDLES_SQL = `
  UPDATE symbol_rows AS r SET symbol_key = unhex(substr(s.symbol_id, 5)), stable_key = unhex(substr(s.stable_id, 4))
    FROM symbols s WHERE s.id = r.id;
  DROP VIEW symbols;
  ${symbolsViewSql(17)}`;

/** SQL giving a store schema 16's symbol and chunk rows (last lines, not spans) in place of schema 17's. */
export const SCHEMA16_SPANS_SQL = `
  DROP VIEW symbols;
  DROP VIEW chunks;
  UPDATE symbol_rows SET line_span = line_start + line_span;
  UPDATE chunk_rows SET line_span = line_start + line_span;
  ALTER TABLE symbol_rows RENAME COLUMN line_span TO line_end;
  ALTER TABLE chunk_rows RENAME COLUMN line_span TO line_end;
  ${symbolsViewSql(16)}${chunksViewSql(16)}`;

/** SQL giving a store schema 15's edge rows (targets spelled in each row) in place of schema 16's. */
export const SCHEMA15_EDGES_SQL = `
  DROP VIEW edges;
  ALTER TABLE edge_rows RENAME TO edge_rows16;
  CREATE TABLE edge_rows (id INTEGER PRIMARY KEY, file_id INTEGER NOT NULL, kind TEXT NOT NULL, source_id INTEGER,
    target TEXT NOT NULL, target_lower TEXT, line INTEGER NOT NULL);
  INSERT INTO edge_rows SELECT e.id, e.file_id, e.kind, e.source_id, t.name, t.name_lower, e.line
    FROM edge_rows16 e JOIN edge_targets t ON t.id = e.target_id;
  DROP TABLE edge_rows16;
  DROP TABLE edge_targets;
  CREATE INDEX edges_target ON edge_rows(coalesce(target_lower, lower(target)), kind);
  CREATE INDEX edges_source ON edge_rows(source_id);
  ${edgesViewSql(15)}`;

/** SQL giving a store schema 14's handle index (whole keys) in place of schema 15's. */
export const SCHEMA14_SID_SQL = `DROP INDEX symbols_sid; CREATE INDEX symbols_sid ON symbol_rows(symbol_key);`;

/** SQL giving a store schema 27's symbol names (a unique index of the name, no late index) in place of 28's. */
export const SCHEMA27_NAMES_SQL = `
  DROP INDEX IF EXISTS symbol_names_late;
  DROP INDEX symbol_names_clen;
  DROP INDEX symbol_names_len;
  ALTER TABLE symbol_names RENAME TO symbol_names28;
  CREATE TABLE symbol_names (id INTEGER PRIMARY KEY, name_lower TEXT NOT NULL UNIQUE, len INTEGER NOT NULL,
    clen INTEGER NOT NULL, count INTEGER NOT NULL);
  INSERT INTO symbol_names SELECT id, name_lower, len, clen, count FROM symbol_names28 ORDER BY id;
  DROP TABLE symbol_names28;
  ${NAME_LENGTH_INDEXES_SQL}
  DELETE FROM meta WHERE key = '${NAMES_SORTED}';`;

/**
 * SQL giving a store schema 26's call edges (every call edge an edge row,
 * its reference a plain call) and reference names (unique, no key index)
 * in place of schema 27's. Edge rows added here
 * take ids past every file's range, so each range is widened to its rows
 * (ranges may hold other files' rows). The test trees' called names are
 * ASCII: SQLite's `lower` gives their lower case.
 */
export const SCHEMA26_EDGES_SQL = `
  DROP INDEX IF EXISTS ref_names_fold;
  CREATE TABLE ref_names26 (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
  INSERT INTO ref_names26 SELECT id, name FROM ref_names;
  DROP TABLE ref_names;
  ALTER TABLE ref_names26 RENAME TO ref_names;
  INSERT INTO edge_targets(name) SELECT DISTINCT n.name FROM refs r JOIN ref_names n ON n.id = r.name_id
    WHERE r.kind = ${CALL_EDGE_KIND} AND n.name NOT IN (SELECT name FROM edge_targets);
  INSERT INTO edge_rows(file_id, kind, source_id, target_id, line)
    SELECT r.file_id, '0', f.sym_lo + r.source_id, t.id, r.line
    FROM refs r JOIN ref_names n ON n.id = r.name_id JOIN edge_targets t ON t.name = n.name
      JOIN files f ON f.id = r.file_id
    WHERE r.kind = ${CALL_EDGE_KIND} ORDER BY r.file_id, r.line, r.col;
  UPDATE refs SET kind = ${CALL_KIND} WHERE kind = ${CALL_EDGE_KIND};
  UPDATE files SET edge_lo = e.lo, edge_hi = e.hi
    FROM (SELECT file_id, min(id) AS lo, max(id) AS hi FROM edge_rows GROUP BY file_id) AS e WHERE e.file_id = files.id;`;

/** SQL giving a store schema 25's signatures and docs (a leading `#define ` spelled out) in place of schema 26's. */
export const SCHEMA25_TEXT_SQL = `
  DROP VIEW symbols;
  UPDATE symbol_rows SET
    signature = CASE typeof(signature) WHEN 'text' THEN replace(signature, char(2), '#define ') ELSE signature END,
    doc = CASE typeof(doc) WHEN 'text' THEN replace(doc, char(2), '#define ') ELSE doc END;
  ${symbolsViewSql(25)}`;

/** SQL giving a store schema 24's references (in file order, a name index, no name lists) in place of schema 25's. */
export const SCHEMA24_REFS_SQL = `
  CREATE TABLE refs24 (
    file_id INTEGER NOT NULL, line INTEGER NOT NULL, col INTEGER NOT NULL, name_id INTEGER NOT NULL,
    kind INTEGER NOT NULL, qual_id INTEGER, source_id INTEGER, hint_id INTEGER,
    PRIMARY KEY (file_id, line, col)
  ) WITHOUT ROWID;
  INSERT INTO refs24 SELECT file_id, line, col, name_id, kind, qual_id, source_id, hint_id FROM refs;
  DROP TABLE refs;
  ALTER TABLE refs24 RENAME TO refs;
  CREATE INDEX refs_name ON refs(name_id);
  DROP TABLE ref_file_names;`;

/** SQL giving a store schema 23's tables: no recorded common terms. */
export const SCHEMA23_TERMS_SQL = `
  DROP TABLE common_terms;
  DELETE FROM meta WHERE key = 'common_terms_deleted';`;

/** SQL giving a store schema 22's FTS5 name trigram table (the names' grams put back) in place of packed lists. */
export const SCHEMA22_GRAMS_SQL = `
  DROP TABLE name_grams;
  DROP TABLE name_gram_edits;
  CREATE VIRTUAL TABLE symbol_names_fts USING fts5(grams, content='', columnsize=0, detail=none, tokenize='trigram');
  INSERT INTO symbol_names_fts(rowid, grams)
    SELECT id, '^' || replace(replace(name_lower, '_', ''), '.', '') || '$' FROM symbol_names;`;

/** SQL giving a store schema 13's name trigram table (positions and row sizes kept; the names' grams put back). */
export const SCHEMA13_GRAMS_SQL = `
  DROP TABLE symbol_names_fts;
  CREATE VIRTUAL TABLE symbol_names_fts USING fts5(grams, content='', contentless_delete=1, tokenize='trigram');
  INSERT INTO symbol_names_fts(rowid, grams)
    SELECT id, '^' || replace(replace(name_lower, '_', ''), '.', '') || '$' FROM symbol_names;`;

/** SQL giving a store schema 12's signatures and docs (names in them) in place of schema 13's. */
export const SCHEMA12_TEXT_SQL = `
  DROP VIEW symbols;
  UPDATE symbol_rows SET signature = ${textWithNameSql("signature", "name", 25)}, doc = ${
  textWithNameSql("doc", "name", 25)
};
  ${symbolsViewSql(12)}`;

/** SQL giving a store schema 11's files (no row id ranges) and indexes of a file's rows in place of schema 12's. */
export const SCHEMA11_RANGES_SQL = `
  DROP VIEW symbols;
  DROP VIEW edges;
  DROP VIEW chunks;
  ${
  ["sym", "edge", "chunk"].flatMap((
    t,
  ) => [`ALTER TABLE files DROP COLUMN ${t}_lo;`, `ALTER TABLE files DROP COLUMN ${t}_hi;`]).join("\n")
}
  CREATE INDEX symbols_path ON symbol_rows(file_id, line_start);
  CREATE INDEX edges_path ON edge_rows(file_id);
  CREATE INDEX chunks_path ON chunk_rows(file_id, line_start);
  ${symbolsViewSql(11)}${edgesViewSql(11)}${chunksViewSql(11)}`;

/** SQL giving a store schema 10's index of symbols by parent (every symbol) in place of schema 11's. */
export const SCHEMA10_PARENT_SQL = `DROP INDEX symbols_parent; CREATE INDEX symbols_parent ON symbol_rows(parent_id);`;

/** SQL giving a store schema 9's symbol rows and view (qualified names whole) in place of schema 10's. */
export const SCHEMA9_QUALIFIED_SQL = `
  DROP VIEW symbols;
  UPDATE symbol_rows SET qualified_name = qualifier || '.' || name WHERE qualifier IS NOT NULL;
  ALTER TABLE symbol_rows DROP COLUMN qualifier;
  ${symbolsViewSql(9)}`;

/** SQL giving a store schema 8's rows and views (kinds and visibility as words) in place of schema 9's. */
export const SCHEMA8_WORDS_SQL = `
  DROP VIEW symbols;
  DROP VIEW edges;
  UPDATE symbol_rows SET kind = ${wordSql(SYMBOL_KIND_WORDS, "kind")},
    visibility = ${wordSql(VISIBILITY_WORDS, "visibility")};
  UPDATE edge_rows SET kind = ${wordSql(EDGE_KIND_WORDS, "kind")};
  ${symbolsViewSql(8)}${edgesViewSql(8)}`;

/** SQL giving a store schema 7's symbol rows and view (handles as text) in place of schema 8's. */
export const SCHEMA7_HANDLES_SQL = `
  DROP VIEW symbols;
  UPDATE symbol_rows SET symbol_key = 'sym_' || lower(hex(symbol_key)), stable_key = 'b3:' || lower(hex(stable_key));
  ALTER TABLE symbol_rows RENAME COLUMN symbol_key TO symbol_id;
  ALTER TABLE symbol_rows RENAME COLUMN stable_key TO stable_id;
  ${symbolsViewSql(7)}`;

/**
 * Turns a project's index back into an older schema (below 5: the old
 * symbols table; then `sql`, then the version), checks that readers call it
 * `reindex_required`, and runs a sync; throws unless the sync publishes.
 */
export async function downgradeThenSync(h: TestHome, project: ProjectRow, sql: string, version: number): Promise<void> {
  // Stores before schema 7 held every chunk's text.
  if (version < 7) storeSeedChunkText(indexPath(h.registry.projectDir(project.project_id)));
  const { db } = openIndexForRead(h.registry.projectDir(project.project_id));
  if (version < 28) db!.exec(SCHEMA27_NAMES_SQL);
  if (version < 27) db!.exec(SCHEMA26_EDGES_SQL);
  if (version < 26) db!.exec(SCHEMA25_TEXT_SQL);
  if (version < 25) db!.exec(SCHEMA24_REFS_SQL);
  if (version < 24) db!.exec(SCHEMA23_TERMS_SQL);
  if (version < 23) db!.exec(SCHEMA22_GRAMS_SQL);
  if (version < 21) db!.exec(SCHEMA20_NAME_INDEX_SQL);
  if (version < 20) db!.exec(SCHEMA19_REF_SOURCES_SQL);
  if (version < 19) db!.exec(SCHEMA18_EDGE_TARGET_SQL);
  if (version < 18) db!.exec(SCHEMA17_HANDLES_SQL);
  if (version < 17) db!.exec(SCHEMA16_SPANS_SQL);
  if (version < 16) db!.exec(SCHEMA15_EDGES_SQL);
  if (version < 15) db!.exec(SCHEMA14_SID_SQL);
  if (version < 14) db!.exec(SCHEMA13_GRAMS_SQL);
  if (version < 13) db!.exec(SCHEMA12_TEXT_SQL);
  if (version < 12) db!.exec(SCHEMA11_RANGES_SQL);
  if (version < 11) db!.exec(SCHEMA10_PARENT_SQL);
  if (version < 10) db!.exec(SCHEMA9_QUALIFIED_SQL);
  if (version < 9) db!.exec(SCHEMA8_WORDS_SQL);
  if (version < 8) db!.exec(SCHEMA7_HANDLES_SQL);
  if (version < 6) db!.exec("ALTER TABLE refs DROP COLUMN hint_id");
  if (version < 5) db!.exec(SCHEMA4_ROWS_SQL);
  db!.exec(sql);
  setMeta(db!, "schema_version", String(version));
  db!.close();
  const readers = new IndexReaders(h.registry);
  const view = readers.view(project);
  const status = view.schemaStatus;
  // Queries meanwhile name the cheap fix: a sync upgrades an older store in place.
  let fix: unknown = null;
  try {
    requireIndex(view);
  } catch (e) {
    fix = (e as { data?: { fix?: unknown } }).data?.fix;
  }
  readers.closeAll();
  if (status !== "reindex_required") throw new Error(`schema ${version} store is ${status}, not reindex_required`);
  if (fix !== `cruxe sync --path ${project.repo_root}`) throw new Error(`the fix named is ${JSON.stringify(fix)}`);
  const job = await h.runner.start(project, { mode: "incremental", force: false }).active.done;
  if (job.status !== "published") throw new Error(`the upgrading sync ended ${job.status}`);
}
