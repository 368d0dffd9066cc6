/**
 * The query commands of the CLI (`search`, `locate`, `outline`, `hierarchy`,
 * `related`, `context`): the same `src/query/` functions the MCP tools call,
 * printed as tables for people or JSON with `--json`.
 */
import type { CliContext } from "../context.ts";
import { projectForPath } from "../project_arg.ts";
import { printJson, printTable } from "../output.ts";
import { IndexReaders, requireIndex } from "../../query/index_reader.ts";
import { searchCode } from "../../query/search_code.ts";
import { locateSymbol } from "../../query/locate_symbol.ts";
import { getFileOutline, type OutlineNode } from "../../query/file_outline.ts";
import { getSymbolHierarchy } from "../../query/symbol_hierarchy.ts";
import { findRelatedSymbols } from "../../query/related_symbols.ts";
import { getCodeContext } from "../../query/code_context.ts";
import type { Db } from "../../state/db.ts";

/** Arguments shared by the query commands. */
export interface QueryArgs {
  workspace?: string;
  json: boolean;
  text: string;
  flags: Record<string, string | undefined>;
}

/** Runs `fn` on the index of the workspace the command names (default: the one containing the current directory). */
export function withIndex<T>(ctx: CliContext, a: QueryArgs, fn: (db: Db) => T): T {
  const project = projectForPath(ctx.registry, a.workspace ?? Deno.cwd(), false);
  const readers = new IndexReaders(ctx.registry);
  try {
    return fn(requireIndex(readers.view(project)));
  } catch (e) {
    throw readers.fault(project, e);
  } finally {
    readers.closeAll();
  }
}

const num = (v: string | undefined) => v === undefined ? undefined : Number(v);

/** Runs one query command; returns the exit code. */
export function runQueryCommand(ctx: CliContext, cmd: string, a: QueryArgs): number {
  const f = a.flags;
  switch (cmd) {
    case "search": {
      const r = withIndex(
        ctx,
        a,
        (db) =>
          searchCode(db, {
            query: a.text,
            language: f.lang,
            limit: num(f.limit),
            pathPrefix: f["path-prefix"],
            ref: f.ref,
          }),
      );
      if (a.json) return printJson(r), 0;
      console.log(`intent: ${r.query_intent}, ${r.total_candidates} candidates`);
      printTable(
        ["score", "type", "location", "name", "snippet"],
        r.results.map((x) => [
          x.score.toFixed(2),
          x.result_type,
          `${x.path}:${x.line_start}`,
          x.qualified_name ?? x.name ?? "",
          (x.snippet ?? "").split("\n").find((l) => l.trim())?.trim() ?? "",
        ]),
      );
      return 0;
    }
    case "locate": {
      const r = withIndex(
        ctx,
        a,
        (db) => locateSymbol(db, { name: a.text, kind: f.kind, language: f.lang, limit: num(f.limit) }),
      );
      if (a.json) return printJson(r), 0;
      printTable(
        ["score", "kind", "qualified name", "location", "signature"],
        r.results.map((x) => [x.score.toFixed(2), x.kind, x.qualified_name, `${x.path}:${x.line_start}`, x.signature]),
      );
      return 0;
    }
    case "outline": {
      const r = withIndex(
        ctx,
        a,
        (db) => getFileOutline(db, { path: a.text, depth: f.depth as "top" | "all" | undefined }),
      );
      if (a.json) return printJson(r), 0;
      const walk = (nodes: OutlineNode[], indent: string) => {
        for (const n of nodes) {
          console.log(`${indent}${n.kind} ${n.name}  :${n.line_start}-${n.line_end}`);
          walk(n.children, indent + "  ");
        }
      };
      console.log(`${r.path} (${r.language}, ${r.line_count} lines, ${r.symbol_count} symbols)`);
      walk(r.symbols, "  ");
      return 0;
    }
    case "hierarchy": {
      const r = withIndex(ctx, a, (db) =>
        getSymbolHierarchy(db, {
          symbol_name: a.text,
          path: f.path,
          direction: f.direction as "ancestors" | "descendants" | undefined,
        }));
      printJson(r);
      return 0;
    }
    case "related": {
      const r = withIndex(ctx, a, (db) =>
        findRelatedSymbols(db, {
          symbol_name: a.text,
          path: f.path,
          scope: f.scope as "file" | "module" | "package" | undefined,
          limit: num(f.limit),
        }));
      if (a.json) return printJson(r), 0;
      printTable(
        ["relation", "kind", "qualified name", "location"],
        r.related.map((x) => [x.relation, x.kind, x.qualified_name, `${x.path}:${x.line ?? x.line_start}`]),
      );
      return 0;
    }
    case "context": {
      const r = withIndex(ctx, a, (db) =>
        getCodeContext(db, {
          query: a.text,
          max_tokens: num(f["max-tokens"]),
          strategy: f.strategy as "breadth" | "depth" | undefined,
        }));
      if (a.json) return printJson(r), 0;
      for (const it of r.items) {
        console.log(`--- ${it.role}: ${it.path}:${it.line_start}-${it.line_end} ${it.qualified_name ?? ""}`);
        console.log(it.content);
      }
      console.log(`(${r.estimated_tokens} of ${r.max_tokens} tokens${r.truncated ? ", truncated" : ""})`);
      return 0;
    }
  }
  return 2;
}
