/**
 * Multi-repo scope: which registered repositories a request
 * covers, and one ranked list merged from their searches.
 *
 * Repository names: a repo is addressed by its project's `name` column, which
 * `registerProject` makes unique (the directory name, then `name-2`, `name-3`
 * on clashes). The config's `repoNames` (repository path → name) overrides a
 * project's name; when a configured name collides with another project's
 * name, the configured project keeps it and the other one stays reachable by
 * its `project_id`. A project's `project_id` is always accepted as its name.
 *
 * Scope rules: `scope` wins over `repo`; `repo` alone is `{type: "repo"}`;
 * neither means "no scope" (the caller routes by `workspace` as usual);
 * `{type: "repos"}` takes 1..10 names; `{type: "all"}` is `forbidden` unless
 * `allowGlobalScope` (`ALLOW_GLOBAL_SCOPE=true`).
 *
 * Requires `--allow-read` on the Cruxe home (index files) and, to canonicalize
 * `repoNames` keys, on those paths.
 */
import { realpathSync } from "node:fs";
import { CruxeError } from "../core/errors.ts";
import type { ResultCompleteness } from "../core/metadata.ts";
import type { Db } from "../state/db.ts";
import type { ProjectRow } from "../state/registry.ts";
import { type IndexView, requireIndex } from "./index_reader.ts";
import { parsePathPrefix } from "./_input_rules.ts";

/** Most repositories a `repos` scope may name. */
export const MAX_SCOPE_REPOS = 10;

/** A scope as a client sends it. */
export type Scope =
  | { type: "repo"; repo: string }
  | { type: "repos"; repos: string[] }
  | { type: "all" };

/** The scope echoed in `meta.scope`: its type and the repositories it covered. */
export interface EffectiveScope {
  type: "repo" | "repos" | "all";
  repos: string[];
}

/** One repository a request covers. */
export interface RepoTarget {
  name: string;
  project: ProjectRow;
}

/** A resolved scope. */
export interface ResolvedScope {
  scope: EffectiveScope;
  targets: RepoTarget[];
}

/** One hit of a per-repository search (the shape `searchCode` returns). */
export interface SearchHit {
  path: string;
  /** The symbol the hit is in, when the search knows one. */
  name?: string | null;
  line_start: number;
  line_end: number;
  score: number;
  snippet?: string;
  /** With `debug`: whether the hit joined its symbol's row. */
  join_status?: "hit" | "miss";
}

/** Inputs of a per-repository search. */
export interface SearchInput {
  query: string;
  limit: number;
  language?: string;
  pathPrefix?: string;
  /** The repository searched (a search that reads more than its index, such as its chunk vectors, needs it). */
  project?: ProjectRow;
  /** Each hit also says its `join_status` (search_code's `debug`). */
  debug?: boolean;
}

/** What a per-repository search answers: its best hits and how many candidates it had in all. */
export interface SearchAnswer {
  results: SearchHit[];
  total_candidates: number;
  /** Set when the repository's own answer is partial (a bounded read stopped early), with why. */
  meta?: { result_completeness?: ResultCompleteness; note?: string };
}

/** A per-repository search, e.g. `searchCode` from `search_code.ts`. Its `score` must be comparable across repositories. */
export type SearchFn = (db: Db, input: SearchInput) => SearchAnswer | Promise<SearchAnswer>;

/** A merged hit: the repository's hit (all its fields) plus `repo` and the file-001 line fields. */
export type ScopedHit = SearchHit & { repo: string; startLine: number; endLine: number };

/** How one repository took part in a scoped search. */
export interface RepoSearchStatus {
  repo: string;
  repo_root: string;
  indexing_status: "ready" | "indexing" | "not_indexed" | "failed";
  results: number;
  total_candidates: number;
  note?: string;
}

/** The answer of a scoped search. */
export interface ScopedSearchResult {
  results: ScopedHit[];
  total_candidates: number;
  result_completeness: ResultCompleteness;
  repos: RepoSearchStatus[];
}

/** What a scoped search needs from the server. */
export interface ScopeDeps {
  /** The index view of a project (IndexReaders.view). */
  view(project: ProjectRow): IndexView;
  /** True while a job is indexing the project (JobRunner.activeFor). */
  isIndexing?(projectId: string): boolean;
  /** What a failure reading a project's index means (IndexReaders.fault: a damaged index is marked and said). */
  fault?(project: ProjectRow, err: unknown): unknown;
}

function canonicalKey(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path.replace(/\/+$/, "") || "/";
  }
}

/**
 * Name → project for every registered project (see the module comment for
 * how `repoNames` and clashes are handled).
 */
export function repoDirectory(projects: ProjectRow[], repoNames: Record<string, string> = {}): Map<string, ProjectRow> {
  const configured = new Map<string, string>(); // repo_root -> configured name
  for (const [path, name] of Object.entries(repoNames)) {
    if (typeof name === "string" && name.trim()) configured.set(canonicalKey(path), name.trim());
  }
  const dir = new Map<string, ProjectRow>();
  for (const p of projects) {
    const name = configured.get(p.repo_root);
    if (name) dir.set(name, p);
  }
  for (const p of projects) {
    if (configured.has(p.repo_root)) continue;
    if (!dir.has(p.name)) dir.set(p.name, p);
  }
  return dir;
}

/** The name a project answers to (its configured or stored name, or its id when that name is taken). */
export function repoNameOf(dir: Map<string, ProjectRow>, project: ProjectRow): string {
  for (const [name, p] of dir) if (p.project_id === project.project_id) return name;
  return project.project_id;
}

function lookup(dir: Map<string, ProjectRow>, projects: ProjectRow[], name: unknown): RepoTarget {
  if (typeof name !== "string" || !name.trim()) {
    throw new CruxeError("invalid_input", "A repo name must be a non-empty string", { repo: name });
  }
  const n = name.trim();
  const p = dir.get(n) ?? projects.find((x) => x.project_id === n);
  if (!p) {
    throw new CruxeError("project_not_found", `No registered repository is named "${n}"`, {
      repo: n,
      known_repos: [...dir.keys()].sort(),
    });
  }
  return { name: dir.get(n) ? n : repoNameOf(dir, p), project: p };
}

/**
 * Resolves `scope` / `repo` to the repositories a request covers, or null
 * when neither was sent. Throws `invalid_input` (malformed scope, more than 10
 * repos), `project_not_found` (unknown name), `forbidden` (`all` without the flag).
 */
export function resolveScope(
  input: { scope?: unknown; repo?: unknown },
  opts: { projects: ProjectRow[]; allowGlobalScope: boolean; repoNames?: Record<string, string> },
): ResolvedScope | null {
  const dir = repoDirectory(opts.projects, opts.repoNames ?? {});
  let scope: unknown = input.scope;
  if (scope === undefined || scope === null) {
    if (input.repo === undefined || input.repo === null) return null;
    scope = { type: "repo", repo: input.repo };
  }
  if (typeof scope !== "object" || Array.isArray(scope)) {
    throw new CruxeError("invalid_input", 'scope must be {type: "repo"|"repos"|"all", ...}', { scope });
  }
  const s = scope as Record<string, unknown>;
  switch (s.type) {
    case "repo": {
      const t = lookup(dir, opts.projects, s.repo);
      return { scope: { type: "repo", repos: [t.name] }, targets: [t] };
    }
    case "repos": {
      if (!Array.isArray(s.repos) || s.repos.length === 0) {
        throw new CruxeError("invalid_input", 'scope {type: "repos"} needs a non-empty repos array', { scope });
      }
      if (s.repos.length > MAX_SCOPE_REPOS) {
        throw new CruxeError("invalid_input", `scope.repos may name at most ${MAX_SCOPE_REPOS} repositories`, {
          count: s.repos.length,
        });
      }
      const targets: RepoTarget[] = [];
      for (const r of s.repos) {
        const t = lookup(dir, opts.projects, r);
        if (!targets.some((x) => x.project.project_id === t.project.project_id)) targets.push(t);
      }
      return { scope: { type: "repos", repos: targets.map((t) => t.name) }, targets };
    }
    case "all": {
      if (!opts.allowGlobalScope) {
        throw new CruxeError(
          "forbidden",
          'scope {type: "all"} is disabled; set ALLOW_GLOBAL_SCOPE=true (or allowGlobalScope in the config) to enable it',
          { scope: { type: "all" } },
        );
      }
      const targets = opts.projects.map((p) => ({ name: repoNameOf(dir, p), project: p }));
      return { scope: { type: "all", repos: targets.map((t) => t.name) }, targets };
    }
    default:
      throw new CruxeError("invalid_input", 'scope.type must be "repo", "repos" or "all"', { scope });
  }
}

/**
 * A scoped call's path-prefix filter (`field` names the argument): relative only, by the rule every tool
 * shares (`parsePathPrefix`); a scope spans several roots, so no absolute path is accepted here.
 */
export function checkPathPrefix(pathPrefix: unknown, field = "pathPrefix"): string | undefined {
  return parsePathPrefix(pathPrefix, field);
}

/** The per-repository cap of an `all` scope: no repository fills more than half of `topK` while others have hits. */
export function defaultPerRepoCap(topK: number): number {
  return Math.max(1, Math.ceil(topK / 2));
}

/**
 * Merges per-repository hit lists on their (comparable) `score`, best first;
 * ties by scope order, then path and line. With `perRepoCap`, a repository
 * contributes at most that many hits, unless slots would otherwise stay empty
 * (then capped hits backfill, best first).
 */
export function mergeRanked(
  lists: { repo: string; hits: SearchHit[] }[],
  topK: number,
  perRepoCap?: number,
): ScopedHit[] {
  const all: { hit: SearchHit; repo: string; order: number }[] = [];
  lists.forEach((l, order) => {
    for (const hit of l.hits) all.push({ hit, repo: l.repo, order });
  });
  all.sort((a, b) =>
    (Number(b.hit.score) || 0) - (Number(a.hit.score) || 0) || a.order - b.order ||
    a.hit.path.localeCompare(b.hit.path) || a.hit.line_start - b.hit.line_start
  );
  const taken: typeof all = [];
  const spill: typeof all = [];
  const per = new Map<string, number>();
  for (const x of all) {
    const n = per.get(x.repo) ?? 0;
    if (perRepoCap !== undefined && n >= perRepoCap) spill.push(x);
    else if (taken.length < topK) {
      taken.push(x);
      per.set(x.repo, n + 1);
    }
  }
  for (const x of spill) {
    if (taken.length >= topK) break;
    taken.push(x);
  }
  taken.sort((a, b) =>
    (Number(b.hit.score) || 0) - (Number(a.hit.score) || 0) || a.order - b.order ||
    a.hit.path.localeCompare(b.hit.path) || a.hit.line_start - b.hit.line_start
  );
  return taken.map((x) => ({ ...x.hit, repo: x.repo, startLine: x.hit.line_start, endLine: x.hit.line_end }));
}

/**
 * Runs `search` over every target and merges the hits (see `mergeRanked`;
 * the per-repo cap applies to `all` scopes). A repository still indexing
 * contributes what its published index has and makes the answer `partial`;
 * one with no usable index contributes nothing and makes it `partial` too,
 * except in a single-`repo` scope, where its error (`index_not_ready`,
 * `index_incompatible`) is thrown.
 */
export async function searchScope(
  deps: ScopeDeps,
  resolved: ResolvedScope,
  input: { query: string; topK: number; language?: string; pathPrefix?: string; perRepoCap?: number; debug?: boolean },
  search: SearchFn,
): Promise<ScopedSearchResult> {
  const lists: { repo: string; hits: SearchHit[] }[] = [];
  const repos: RepoSearchStatus[] = [];
  let completeness: ResultCompleteness = "complete";
  let total = 0;
  for (const t of resolved.targets) {
    const indexing = deps.isIndexing?.(t.project.project_id) ?? false;
    const status: RepoSearchStatus = {
      repo: t.name,
      repo_root: t.project.repo_root,
      indexing_status: indexing ? "indexing" : "ready",
      results: 0,
      total_candidates: 0,
    };
    repos.push(status);
    /** A repository whose index cannot answer: the whole call's error for one repo, else a partial answer. */
    const unusable = (e: unknown) => {
      if (resolved.scope.type === "repo" && !indexing) throw e;
      completeness = "partial";
      if (!indexing) status.indexing_status = (e as CruxeError).code === "index_not_ready" ? "not_indexed" : "failed";
      status.note = (e as Error).message;
    };
    let db: Db;
    try {
      db = requireIndex(deps.view(t.project));
    } catch (e) {
      unusable(e);
      continue;
    }
    let out: SearchAnswer;
    try {
      out = await search(db, {
        query: input.query,
        limit: input.topK,
        language: input.language,
        pathPrefix: input.pathPrefix,
        project: t.project,
        debug: input.debug,
      });
    } catch (err) {
      // Only a damaged or unreadable store is this repository's state; any other failure is the call's.
      const fault = deps.fault?.(t.project, err) ?? err;
      if (fault === err) throw err;
      unusable(fault);
      continue;
    }
    if (indexing) completeness = "partial";
    if (out.meta?.result_completeness === "partial") {
      completeness = "partial";
      if (out.meta.note) status.note = out.meta.note;
    }
    const hits = out.results.filter((h) => !input.pathPrefix || h.path.startsWith(input.pathPrefix));
    status.total_candidates = out.total_candidates;
    total += status.total_candidates;
    lists.push({ repo: t.name, hits });
  }
  const cap = resolved.scope.type === "all" ? input.perRepoCap ?? defaultPerRepoCap(input.topK) : undefined;
  const results = mergeRanked(lists, input.topK, cap);
  for (const s of repos) s.results = results.filter((r) => r.repo === s.repo).length;
  return { results, total_candidates: total, result_completeness: completeness, repos };
}
