/**
 * The core query tools answered from a team store (PostgreSQL): which
 * repository and ref a call reads, then `locate_symbol`, `get_file_outline`,
 * `search_code` and `open_file` over that ref's published snapshot. Every
 * answer's `metadata` names the repository, the ref and the commit it read.
 * The SQL is `src/state/pg/sql.ts`'s; this module shapes the answers.
 * Requires `--allow-net` to the database.
 */
import { CruxeError } from "../core/errors.ts";
import { lightStem, queryTerms as ftsQueryTerms, searchTerms } from "./search/fts_query.ts";
import type { PgQuerier, PgRow } from "../state/pg/pg_pool.ts";
import * as SQL from "../state/pg/sql.ts";
import type { TeamRepo } from "../state/pg/team_store.ts";
import { fileWindow, type OpenFileInput, type OpenFileResult, windowArgs } from "./open_file.ts";
import { LIMITS } from "./limits.ts";

/** Which repository and ref a team query reads. */
export interface TeamTarget {
  repo: TeamRepo;
  ref: string;
}

/** What every team answer says it read. */
export interface TeamMetadata {
  store: "postgres";
  repo: string;
  ref: string;
  commit: string;
}

/**
 * The repository a call names (by name, or by the path it was registered
 * with) and the ref it reads (default: the first ref name of its patterns
 * that is not a pattern). `project_not_found` for an unknown repository,
 * `invalid_input` when no ref is given and none is the default.
 */
export function teamTarget(repos: TeamRepo[], repo: string | undefined, ref: string | undefined): TeamTarget {
  const r = repo === undefined
    ? (repos.length === 1 ? repos[0] : undefined)
    : repos.find((x) => x.name === repo || x.path === repo);
  if (!r) {
    throw new CruxeError(
      "project_not_found",
      repo === undefined
        ? `The team store holds ${repos.length} repositories; name one (--repo NAME): ${
          repos.map((x) => x.name).join(", ")
        }`
        : `No repository ${JSON.stringify(repo)} in the team store; add it with cruxe repo add PATH --store URL`,
      { repo: repo ?? null, repos: repos.map((x) => x.name) },
    );
  }
  const name = ref ?? r.refPatterns.find((p) => !p.includes("*"));
  if (!name) {
    throw new CruxeError("invalid_input", `Name the ref to read (--ref): ${r.name} indexes ${r.refPatterns.join(",")}`);
  }
  return { repo: r, ref: name };
}

function meta(t: TeamTarget, commit: string): TeamMetadata {
  return { store: "postgres", repo: t.repo.name, ref: t.ref, commit };
}

/** The commit (repo, ref) reads, or `ref_not_indexed` naming the fix. */
async function headCommit(q: PgQuerier, t: TeamTarget): Promise<string> {
  const r = await q.query(SQL.HEAD_OF, [t.repo.id, t.ref]);
  if (r.length) return String(r[0].commit_id);
  throw new CruxeError(
    "ref_not_indexed",
    `Ref ${t.ref} of ${t.repo.name} has no published index in the team store yet; a worker publishes it ` +
      `(cruxe worker --store URL), or cruxe index --store URL --path ${t.repo.path} --ref ${t.ref}.`,
    { requested_ref: t.ref, repo: t.repo.name },
  );
}

/** A count argument in [1, max] (default `d`), else `invalid_input`. */
function limitOf(v: number | undefined, tool: keyof typeof LIMITS): number {
  const { default: d, max } = LIMITS[tool];
  if (v === undefined) return d;
  if (!Number.isInteger(v) || v < 1) throw new CruxeError("invalid_input", `limit must be a whole number >= 1`);
  return Math.min(v, max);
}

/** A located definition. */
export interface TeamSymbolHit {
  name: string;
  qualified_name: string;
  kind: string;
  language: string;
  path: string;
  line_start: number;
  line_end: number;
  signature: string;
  symbol_id: string;
}

function hitOf(r: PgRow): TeamSymbolHit {
  return {
    name: String(r.name),
    qualified_name: String(r.qualified_name),
    kind: String(r.kind),
    language: String(r.language),
    path: String(r.path),
    line_start: Number(r.line_start),
    line_end: Number(r.line_end),
    signature: String(r.signature),
    symbol_id: String(r.symbol_id),
  };
}

/** locate_symbol: definitions named `name` (or with that qualified name), exact case first. */
export async function teamLocate(
  q: PgQuerier,
  t: TeamTarget,
  a: { name: string; kind?: string; language?: string; limit?: number },
): Promise<{ results: TeamSymbolHit[]; metadata: TeamMetadata }> {
  const name = a.name.trim();
  if (!name) throw new CruxeError("invalid_input", "name must not be empty");
  const rows = await q.query(SQL.LOCATE_SYMBOL, [
    t.repo.id,
    t.ref,
    name.toLowerCase(),
    a.kind ?? null,
    a.language ?? null,
    name,
    limitOf(a.limit, "locate"),
  ]);
  const commit = rows.length ? String(rows[0].commit_id) : await headCommit(q, t);
  return { results: rows.map(hitOf), metadata: meta(t, commit) };
}

/** A symbol of an outline with its members. */
export interface TeamOutlineNode extends Omit<TeamSymbolHit, "path" | "language"> {
  children: TeamOutlineNode[];
}

/** get_file_outline: the symbols of one file, nested by their parents. */
export async function teamOutline(
  q: PgQuerier,
  t: TeamTarget,
  a: { path: string; depth?: "top" | "all" },
): Promise<
  {
    path: string;
    language: string;
    line_count: number;
    symbol_count: number;
    symbols: TeamOutlineNode[];
    metadata: TeamMetadata;
  }
> {
  const rows = await q.query(SQL.FILE_OUTLINE, [t.repo.id, t.ref, a.path]);
  if (!rows.length) {
    await headCommit(q, t);
    throw new CruxeError("file_not_found", `${a.path} is not in the index of ${t.ref} of ${t.repo.name}`, {
      path: a.path,
    });
  }
  const byId = new Map<number, TeamOutlineNode>();
  const top: TeamOutlineNode[] = [];
  for (const r of rows) {
    if (r.id === null) continue;
    const { path: _p, language: _l, ...rest } = hitOf(r);
    const node = { ...rest, children: [] };
    if (a.depth === "top") {
      if (r.parent_id === null) top.push(node);
      continue;
    }
    byId.set(Number(r.id), node);
    // Rows come in source order, so a parent is met before its members; one not met is listed at the top.
    const parent = r.parent_id === null ? undefined : byId.get(Number(r.parent_id));
    (parent ? parent.children : top).push(node);
  }
  const f = rows[0];
  return {
    path: a.path,
    language: String(f.language),
    line_count: Number(f.line_count),
    symbol_count: Number(f.symbol_count),
    symbols: top,
    metadata: meta(t, String(f.commit_id)),
  };
}

/**
 * The tsquery text of a query: its words split as the index splits
 * identifiers, stop words dropped (the SQLite search's rules), a word with a
 * light stem also matched as a prefix of it (`validat:*`); only letters and
 * digits reach the text, joined by `|`.
 */
export function tsqueryText(query: string): string {
  const words = searchTerms(ftsQueryTerms(query)).filter((t) => /^[\p{L}\p{N}]+$/u.test(t));
  return words.map((w) => {
    const stem = lightStem(w);
    return stem !== w && stem.length >= 3 ? `${w} | ${stem}:*` : w;
  }).join(" | ");
}

/** The words of `text` as the index holds them (for marking matching lines). */
function lineTerms(text: string): Set<string> {
  return new Set(ftsQueryTerms(text).map((t) => t.term));
}

/**
 * How much a file's other matching chunks add to its best chunk's score
 * (measured on a few repositories of the semble dev set: 0.1 beat 0, 0.3 and 0.6).
 */
const OTHER_CHUNKS_WEIGHT = 0.1;

/** A search hit: one chunk of code with its score and the lines that match. */
export interface TeamSearchHit {
  path: string;
  line_start: number;
  line_end: number;
  language: string;
  symbol: string | null;
  score: number;
  match_lines: { line: number; text: string }[];
}

/** The lines of `content` (starting at line `first`) holding one of `terms`, at most 3. */
function matchLines(content: string, first: number, terms: string[]): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  const lines = content.split("\n");
  for (let i = 0; i < lines.length && out.length < 3; i++) {
    const words = lineTerms(lines[i]);
    if (terms.some((w) => words.has(w))) out.push({ line: first + i, text: lines[i].slice(0, 240) });
  }
  return out;
}

/** search_code: chunks ranked by full-text match (symbol names, then paths, then bodies). */
export async function teamSearch(
  q: PgQuerier,
  t: TeamTarget,
  a: { query: string; language?: string; pathPrefix?: string; limit?: number },
): Promise<{ results: TeamSearchHit[]; metadata: TeamMetadata }> {
  const text = tsqueryText(a.query);
  if (!text) throw new CruxeError("invalid_input", "query must contain a word (letters or digits)");
  const terms = searchTerms(ftsQueryTerms(a.query));
  const rows = await q.query(SQL.SEARCH_CHUNKS, [
    t.repo.id,
    t.ref,
    text,
    a.language ?? null,
    a.pathPrefix ?? null,
    limitOf(a.limit, "search"),
    OTHER_CHUNKS_WEIGHT,
  ]);
  const commit = rows.length ? String(rows[0].commit_id) : await headCommit(q, t);
  return {
    results: rows.map((r) => ({
      path: String(r.path),
      line_start: Number(r.line_start),
      line_end: Number(r.line_end),
      language: String(r.language),
      symbol: r.symbol_name === null ? null : String(r.symbol_name),
      score: Math.round(Number(r.score) * 1e6) / 1e6,
      match_lines: matchLines(String(r.content), Number(r.line_start), terms),
    })),
    metadata: meta(t, commit),
  };
}

/** open_file: a line window of a file of the ref's commit, from its stored blob. */
export async function teamOpenFile(
  q: PgQuerier,
  t: TeamTarget,
  input: OpenFileInput,
): Promise<OpenFileResult & { metadata: TeamMetadata }> {
  const window = windowArgs(input);
  const rows = await q.query(SQL.OPEN_FILE, [t.repo.id, t.ref, input.path]);
  if (!rows.length) {
    await headCommit(q, t);
    throw new CruxeError("file_not_found", `${input.path} is not in the index of ${t.ref} of ${t.repo.name}`, {
      path: input.path,
    });
  }
  const r = rows[0];
  return { ...fileWindow(input.path, r.content as Uint8Array, window), metadata: meta(t, String(r.commit_id)) };
}
