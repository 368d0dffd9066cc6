/**
 * The query commands of the CLI (`search`, `locate`, `outline`, `hierarchy`,
 * `related`, `context`): the same `src/query/` functions the MCP tools call,
 * printed as tables for people or JSON with `--json`.
 */
import type { CliContext } from "../context.ts";
import { projectForPath } from "../project_arg.ts";
import { EXIT_FOUND, EXIT_NOTHING, printJson, say } from "../output.ts";
import { type Hit, printHits } from "../hits.ts";
import { userCwd } from "../user_cwd.ts";
import { debug, debugEnabled } from "../../core/log.ts";
import { IndexReaders, requireIndex } from "../../query/index_reader.ts";
import { searchCode } from "../../query/search_code.ts";
import { locateSymbol } from "../../query/locate_symbol.ts";
import { getFileOutline, OUTLINE_MAX_NODES, type OutlineNode } from "../../query/file_outline.ts";
import { getSymbolHierarchy, type TypeNode } from "../../query/symbol_hierarchy.ts";
import { findRelatedSymbols } from "../../query/related_symbols.ts";
import { getCodeContext } from "../../query/code_context.ts";
import type { Db } from "../../state/db.ts";
import { readViewFor, type RefRead } from "../../service/ref_router.ts";
import { openFile } from "../../query/open_file.ts";
import { CruxeError } from "../../core/errors.ts";

/** Arguments shared by the query commands. */
export interface QueryArgs {
  workspace?: string;
  /** The command's name, for the line naming the project searched. */
  command: string;
  json: boolean;
  text: string;
  flags: Record<string, string | undefined>;
}

/**
 * Runs `fn` on the index of the workspace the command names (default: the
 * one containing the current directory), of its `--ref` when one is given
 * (the working tree otherwise; see the MCP tools' `ref`).
 */
export async function withIndex<T>(ctx: CliContext, a: QueryArgs, fn: (db: Db) => T): Promise<T> {
  const project = projectForPath(ctx.registry, a.workspace ?? userCwd(), false);
  const readers = new IndexReaders(ctx.registry);
  let read: RefRead | null = null;
  try {
    read = await readViewFor({ registry: ctx.registry, readers }, project, a.flags.ref);
    const r = fn(requireIndex(read.view));
    // Say which project answered: from a checkout or a subdirectory it is not always the obvious one.
    if (!a.json) {
      const at = read.live ? "" : ` at ${read.ref} (${read.commit})`;
      say(`${a.command} in ${project.name} (${project.repo_root})${at}:`);
      if (read.stale) say(`stale: ${read.stale}`);
    }
    return r;
  } catch (e) {
    throw readers.fault(project, e, read && !read.live ? read.view : undefined);
  } finally {
    readers.closeAll();
  }
}

/** A numeric flag as a number (the tool checks its range), undefined when absent. */
export const num = (v: string | undefined) => v === undefined ? undefined : Number(v);

/** The query commands by name: each reads the index once, then prints JSON or its human form. */
const QUERY_COMMANDS = new Map<string, (ctx: CliContext, a: QueryArgs) => Promise<number>>([
  ["search", queryCommand(searchQuery, showSearch, (r) => r.results.length > 0)],
  ["locate", queryCommand(locateQuery, showLocate, (r) => r.results.length > 0)],
  ["outline", queryCommand(outlineQuery, showOutline)],
  ["hierarchy", queryCommand(hierarchyQuery, showHierarchy)],
  ["related", queryCommand(relatedQuery, showRelated, (r) => r.related.length > 0)],
  ["context", queryCommand(contextQuery, showContext, (r) => r.items.length > 0)],
  ["open", openCommand],
]);

/** `cruxe open`: a line window of a working-tree file (a commit's, with --store: see `team_cmds.ts`). */
function openCommand(ctx: CliContext, a: QueryArgs): Promise<number> {
  if (a.flags.ref !== undefined) {
    throw new CruxeError("invalid_input", "cruxe open reads the working tree; --ref reads a team store (--store URL)");
  }
  const project = projectForPath(ctx.registry, a.workspace ?? userCwd(), false);
  const r = openFile(project.repo_root, { path: a.text, startLine: num(a.flags.start), endLine: num(a.flags.end) });
  if (a.json) printJson(r);
  else Deno.stdout.writeSync(new TextEncoder().encode(r.content));
  return Promise.resolve(EXIT_FOUND);
}

/** Runs one query command; returns the exit code (2 for a name that is no query command). */
export function runQueryCommand(ctx: CliContext, cmd: string, a: QueryArgs): Promise<number> {
  const run = QUERY_COMMANDS.get(cmd);
  return run ? run(ctx, a) : Promise.resolve(2);
}

/**
 * A query command: `query` reads the index (through `withIndex`), then `--json` prints its answer, else `show`.
 * Exits 1 when `found` says the answer holds nothing (as `rg` and `grep` do), 0 otherwise.
 */
function queryCommand<T>(
  query: (db: Db, a: QueryArgs) => T,
  show: (r: T, a: QueryArgs) => void,
  found: (r: T) => boolean = () => true,
) {
  return async (ctx: CliContext, a: QueryArgs): Promise<number> => {
    const r = await withIndex(ctx, a, (db) => query(db, a));
    if (a.json) printJson(r);
    else show(r, a);
    return found(r) ? EXIT_FOUND : EXIT_NOTHING;
  };
}

/** `cruxe search`: ranked code hits for a query. */
function searchQuery(db: Db, a: QueryArgs) {
  const f = a.flags;
  return searchCode(db, {
    query: a.text,
    language: f.lang,
    limit: num(f.limit),
    pathPrefix: f["path-prefix"],
    ref: f.ref,
    debug: debugEnabled(),
  });
}

/**
 * One line per result, as `rg -n` prints it: the best matching line with its
 * own number. At `-v -v`, each result's join status on stderr first.
 */
function showSearch(r: ReturnType<typeof searchQuery>, a: QueryArgs): void {
  if (r.debug) {
    for (const x of r.results) debug(`join_status ${x.join_status}: ${x.path}:${x.line_start}-${x.line_end}`);
    debug(`join_status: ${r.debug.join_status.hits} hits, ${r.debug.join_status.misses} misses`);
  }
  printHits(
    r.results.map((x) => {
      const m = x.match_lines[0];
      // No stored text (a file indexed without it): its first line and name, not a line that is not there.
      return m ? { path: x.path, line: m.line, text: m.text } : { path: x.path, line: x.line_start, text: "" };
    }),
    [a.text],
  );
}

/** `cruxe locate`: where a symbol is defined. */
function locateQuery(db: Db, a: QueryArgs) {
  const f = a.flags;
  return locateSymbol(db, { name: a.text, kind: f.kind, language: f.lang, limit: num(f.limit) });
}

function showLocate(r: ReturnType<typeof locateQuery>, a: QueryArgs): void {
  printHits(
    r.results.map((x) => ({
      path: x.path,
      line: x.line_start,
      text: `${x.kind} ${x.qualified_name}${x.signature ? ` — ${x.signature}` : ""}`,
    })),
    [a.text],
  );
}

/** `cruxe outline`: the symbols of a file, nested. */
function outlineQuery(db: Db, a: QueryArgs) {
  return getFileOutline(db, { path: a.text, depth: a.flags.depth as "top" | "all" | undefined });
}

function showOutline(r: ReturnType<typeof outlineQuery>): void {
  const walk = (nodes: OutlineNode[], indent: string) => {
    for (const n of nodes) {
      say(`${indent}${n.kind} ${n.name}  :${n.line_start}-${n.line_end}`);
      walk(n.children, indent + "  ");
    }
  };
  say(`${r.path} (${r.language}, ${r.line_count} lines, ${r.symbol_count} symbols)`);
  walk(r.symbols, "  ");
  if (r.truncated) say(`truncated: the first ${OUTLINE_MAX_NODES} symbols in source order`);
}

/** `cruxe hierarchy`: what contains a symbol (or what it contains) and its type hierarchy. */
function hierarchyQuery(db: Db, a: QueryArgs) {
  const f = a.flags;
  return getSymbolHierarchy(db, {
    symbol_name: a.text,
    path: f.path,
    direction: f.direction as "ancestors" | "descendants" | undefined,
  });
}

function showHierarchy(r: ReturnType<typeof hierarchyQuery>): void {
  const s = r.symbol;
  printHits([{ path: s.path, line: s.line_start, text: `${s.kind} ${s.qualified_name}` }]);
  say(r.direction === "ancestors" ? "contained in:" : "members:");
  const members = (nodes: typeof r.containment): Hit[] =>
    nodes.flatMap((n) => [
      {
        path: n.path,
        line: "line_start" in n ? n.line_start : 1,
        text: `${n.kind} ${n.qualified_name}`,
      },
      ...members(("children" in n ? n.children : []) as typeof r.containment),
    ]);
  printHits(members(r.containment));
  const types = (nodes: TypeNode[]): Hit[] =>
    nodes.flatMap((t) => [
      {
        path: t.symbol?.path ?? "?",
        line: t.symbol?.line_start ?? 0,
        text: `${t.relation} ${t.symbol?.qualified_name ?? t.name}`,
      },
      ...types(t.children),
    ]);
  if (r.type_hierarchy.length) {
    say("type hierarchy:");
    printHits(types(r.type_hierarchy));
  }
}

/** `cruxe related`: symbols related to one. */
function relatedQuery(db: Db, a: QueryArgs) {
  const f = a.flags;
  return findRelatedSymbols(db, {
    symbol_name: a.text,
    path: f.path,
    scope: f.scope as "file" | "module" | "package" | undefined,
    limit: num(f.limit),
  });
}

function showRelated(r: ReturnType<typeof relatedQuery>): void {
  printHits(
    r.related.map((x) => ({
      path: x.path,
      line: x.line ?? x.line_start,
      text: `${x.relation} ${x.kind} ${x.qualified_name ?? x.name}`,
    })),
  );
}

/** `cruxe context`: code for a question within a token budget. */
function contextQuery(db: Db, a: QueryArgs) {
  const f = a.flags;
  return getCodeContext(db, {
    query: a.text,
    max_tokens: num(f["max-tokens"]),
    strategy: f.strategy as "breadth" | "depth" | undefined,
  });
}

function showContext(r: ReturnType<typeof contextQuery>): void {
  for (const it of r.items) {
    say(`--- ${it.role}: ${it.path}:${it.line_start}-${it.line_end} ${it.qualified_name ?? ""}`);
    say(it.content);
  }
  say(`(${r.estimated_tokens} of ${r.max_tokens} tokens${r.truncated ? ", truncated" : ""})`);
}
