/**
 * The ref-comparing commands of the CLI: `cruxe diff BASE [HEAD]`
 * (diff_context) and `cruxe compare SYMBOL BASE [HEAD]`
 * (compare_symbol_between_commits), through the same `src/query/` functions
 * the MCP tools call; a review-style listing for people, or JSON with `--json`.
 */
import { num } from "./query_cmds.ts";
import type { CliContext } from "../context.ts";
import { projectForPath } from "../project_arg.ts";
import { printJson, say } from "../output.ts";
import { IndexReaders } from "../../query/index_reader.ts";
import { compareRefs, diffRefs } from "../../query/ref_compare.ts";
import type { RefSource } from "../../query/ref_views.ts";
import { refSourceFor } from "../../service/ref_router.ts";
import type { DiffContextResult, RefSide } from "../../query/diff_context.ts";
import type { SymbolChange } from "../../query/_symbol_change.ts";

/** Arguments of `cruxe diff`. */
export interface DiffArgs {
  workspace: string;
  json: boolean;
  base: string;
  head?: string;
  pathPrefix?: string;
  maxTokens?: string;
  mergeBase: boolean;
}

/** Arguments of `cruxe compare`. */
export interface CompareArgs {
  workspace: string;
  json: boolean;
  symbol: string;
  base: string;
  head?: string;
  path?: string;
}

/** Runs `fn` with the ref source of the workspace's project (its index faults answered like every query's). */
async function withRefSource<T>(
  ctx: CliContext,
  workspace: string,
  fn: (src: RefSource, name: string) => Promise<T>,
): Promise<T> {
  const project = projectForPath(ctx.registry, workspace, false);
  const readers = new IndexReaders(ctx.registry);
  try {
    const src = refSourceFor(
      { registry: ctx.registry, readers },
      project,
      () => readers.view(project),
      ctx.config.maxFileBytes,
    );
    return await fn(src, `${project.name} (${project.repo_root})`);
  } catch (e) {
    throw readers.fault(project, e);
  } finally {
    readers.closeAll();
  }
}

const STATUS_MARK: Record<string, string> = {
  added: "A",
  removed: "D",
  modified: "M",
  moved: "V",
  renamed: "R",
  unchanged: "=",
};

/** A compared state for people: the name asked with its commit, or the working tree with its branch and HEAD. */
function refName(s: RefSide): string {
  if (s.commit_id) return `${s.ref} (${s.commit_id.slice(0, 12)})`;
  const wt = s.working_tree;
  const on = [wt?.branch ? `on ${wt.branch}` : "", wt?.head_commit_id ? `at ${wt.head_commit_id.slice(0, 12)}` : ""];
  return `${s.ref} (working tree${on.some(Boolean) ? " " + on.filter(Boolean).join(" ") : ""})`;
}

/** One change as a few lines: mark, name, place, signature change, and its diff indented. */
function changeLines(c: SymbolChange): string[] {
  const where = c.path ? `${c.path}:${c.line_start}` : `${c.path_before}:${c.line_start_before}`;
  const was = [
    c.name_before ? `was ${c.name_before}` : "",
    c.path_before && c.path ? `from ${c.path_before}` : "",
  ].filter(Boolean).join(", ");
  const out = [
    `${STATUS_MARK[c.status]} ${c.qualified_name}  ${where}${
      was ? `  (${was})` : ""
    }  +${c.lines_added} -${c.lines_removed}`,
  ];
  if (c.signature_changed) out.push(`    signature: ${c.signature_before}`, `           →   ${c.signature_after}`);
  for (const l of (c.diff ?? "").split("\n").filter(Boolean)) out.push(`    ${l}`);
  if (c.diff_cut) out.push("    … (diff cut)");
  return out;
}

/** A diff for people: the refs, the counts, each change, each listed file, what was cut. */
export function diffLinesForPeople(r: DiffContextResult): string[] {
  const out = [`base ${refName(r.base)} → head ${refName(r.head)}`];
  if (r.merge_base) out.push(`(from the merge base of ${r.merge_base.base_ref} and ${r.merge_base.head_ref})`);
  const s = r.summary;
  out.push(
    `files: ${s.files_modified} modified, ${s.files_added} added, ${s.files_removed} removed, ${s.files_moved} moved; ` +
      `symbols: ${s.symbols_modified} modified, ${s.symbols_added} added, ${s.symbols_removed} removed, ` +
      `${s.symbols_moved} moved, ${s.symbols_renamed} renamed`,
  );
  for (const c of r.changes) out.push(...changeLines(c));
  for (const f of r.files) {
    out.push(`${STATUS_MARK[f.status]} ${f.path}${f.path_before ? `  (from ${f.path_before})` : ""}  [file]`);
  }
  if (r.truncation_note) {
    out.push(
      `truncated: ${r.omitted.changes} changes and ${r.omitted.files} files left out, ` +
        `${r.omitted.diffs_cut} diffs cut. ${r.truncation_note}`,
    );
  }
  return out;
}

/** Runs `cruxe diff`; returns the exit code. */
export async function runDiffCommand(ctx: CliContext, a: DiffArgs): Promise<number> {
  const r = await withRefSource(ctx, a.workspace, async (src, name) => {
    const out = await diffRefs(src, {
      base_ref: a.base,
      head_ref: a.head,
      path_prefix: a.pathPrefix,
      max_tokens: num(a.maxTokens),
      merge_base: a.mergeBase,
    });
    if (!a.json) say(`diff in ${name}:`);
    return out;
  });
  if (a.json) printJson(r);
  else say(diffLinesForPeople(r).join("\n"));
  return 0;
}

/** Runs `cruxe compare`; returns the exit code. */
export async function runCompareCommand(ctx: CliContext, a: CompareArgs): Promise<number> {
  const r = await withRefSource(ctx, a.workspace, async (src, name) => {
    const out = await compareRefs(src, {
      ...(/^sym_[0-9a-f]{24}$/.test(a.symbol) ? { symbol_id: a.symbol } : { symbol_name: a.symbol }),
      path: a.path,
      base_ref: a.base,
      head_ref: a.head,
    });
    if (!a.json) say(`compare in ${name}:`);
    return out;
  });
  if (a.json) return printJson(r), 0;
  say(`base ${refName(r.base)} → head ${refName(r.head)}: ${r.status}`);
  say(changeLines(r).join("\n"));
  if (r.status === "unchanged") say(`    ${r.signature_after}`);
  return 0;
}
