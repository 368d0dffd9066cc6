/**
 * The answers of the tool commands for people: each command's full
 * (verbose) answer as `path:line: text` hits (as `rg -n` prints them),
 * tables and short notes. Reads the answer as JSON, the shape every client
 * of the tool sees; what the tool said is never recomputed here.
 */
import { debug } from "../core/log.ts";
import { counted, printTable, say } from "./output.ts";
import { type Hit, printHits } from "./hits.ts";

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;

/** The project a command answered from, as its first line names it. */
export interface Answered {
  name: string;
  root: string;
}

/**
 * Prints the answer of the command `command` (its full form) for people, after a line naming the project that
 * answered (from a checkout or a subdirectory it is not always the obvious one) and the commit when a ref did.
 */
export function showAnswer(command: string, answer: Json, from: Answered | null): void {
  const m = answer.metadata as Json | undefined;
  const at = m?.ref_commit ? ` at ${m.ref} (${m.ref_commit})` : "";
  if (from) say(`${command} in ${from.name} (${from.root})${at}:`);
  for (const w of (m?.warnings as string[] | undefined) ?? []) say(`warning: ${w}`);
  // A partial answer says what it leaves out (a capped search, a Kconfig symbol's uses in C).
  if (m?.result_completeness === "partial" && typeof answer.meta?.note === "string") {
    say(`partial: ${answer.meta.note}`);
  }
  VIEWS[command]?.(answer);
}

/** One line per result, as `rg -n` prints it: the best matching line with its own number. */
function showSearch(r: Json): void {
  if (r.debug) {
    for (const x of r.results) debug(`join_status ${x.join_status}: ${x.path}:${x.line_start}-${x.line_end}`);
    debug(`join_status: ${r.debug.join_status.hits} hits, ${r.debug.join_status.misses} misses`);
  }
  printHits(
    (r.results as Json[]).map((x) => {
      const m = x.match_lines?.[0];
      // No stored text (a file indexed without it): its first line and name, not a line that is not there.
      return m ? { path: x.path, line: m.line, text: m.text } : { path: x.path, line: x.line_start, text: "" };
    }),
    [r.query ?? ""].filter(Boolean),
  );
}

function showLocate(r: Json): void {
  printHits(
    (r.results as Json[]).map((x) => ({
      path: x.path,
      line: x.line_start,
      text: `${x.kind} ${x.qualified_name}${x.signature ? ` — ${x.signature}` : ""}`,
    })),
    [r.query ?? ""].filter(Boolean),
  );
}

function showOutline(r: Json): void {
  const walk = (nodes: Json[], indent: string) => {
    for (const n of nodes) {
      say(`${indent}${n.kind} ${n.name}  :${n.line_start}-${n.line_end}`);
      walk(n.children ?? [], indent + "  ");
    }
  };
  say(`${r.path} (${r.language}, ${r.line_count} lines, ${r.symbol_count} symbols)`);
  walk(r.symbols, "  ");
  if (r.next_cursor) say(`more: --cursor ${r.next_cursor}`);
  else if (r.truncated) say("truncated: the first symbols in source order");
}

function showHierarchy(r: Json): void {
  const s = r.symbol;
  printHits([{ path: s.path, line: s.line_start, text: `${s.kind} ${s.qualified_name}` }]);
  say(r.direction === "ancestors" ? "contained in:" : "members:");
  const members = (nodes: Json[]): Hit[] =>
    nodes.flatMap((n) => [
      { path: n.path, line: n.line_start ?? 1, text: `${n.kind} ${n.qualified_name}` },
      ...members(n.children ?? []),
    ]);
  printHits(members(r.containment));
  const types = (nodes: Json[]): Hit[] =>
    nodes.flatMap((t) => [
      {
        path: t.symbol?.path ?? "?",
        line: t.symbol?.line_start ?? 0,
        text: `${t.relation} ${t.symbol?.qualified_name ?? t.name}`,
      },
      ...types(t.children ?? []),
    ]);
  if (r.type_hierarchy?.length) {
    say("type hierarchy:");
    printHits(types(r.type_hierarchy));
  }
}

/** Relations written in the related symbol's own file (its call, its base list); the others in the asked symbol's. */
const WRITTEN_IN_RELATED = new Set(["called_by", "extended_by", "implemented_by"]);

/**
 * Each related symbol at its definition, and where the relation is written (`line`: a line of the asked
 * symbol's file for what it calls or extends; of the related symbol's file for its callers and subtypes); an
 * import at its line.
 */
function showRelated(r: Json): void {
  const subject = r.symbol?.path as string | undefined;
  printHits(
    (r.related as Json[]).map((x) => {
      // An import is a line of the asked symbol's file; the module it names may be an indexed file.
      if (x.relation === "imports") {
        const target = x.resolved_path ? ` (${x.resolved_path})` : "";
        return { path: subject, line: x.line ?? x.line_start ?? 1, text: `imports ${x.kind} ${x.name}${target}` };
      }
      const site = WRITTEN_IN_RELATED.has(x.relation) ? x.path : subject;
      const at = x.line !== undefined && site ? ` (at ${site}:${x.line})` : "";
      return {
        path: x.path ?? subject,
        line: x.line_start ?? x.line ?? 1,
        text: `${x.relation} ${x.kind} ${x.qualified_name ?? x.name}${at}`,
      };
    }),
  );
  if (r.truncated) say(`${(r.related as Json[]).length} of ${r.total_candidates} shown: a higher --limit shows more`);
  if (r.name_only_calls) {
    say(`${r.name_only_calls} calls left out (only the name matches): \`cruxe callgraph --candidates\` lists them`);
  }
}

function showContext(r: Json): void {
  for (const it of r.items as Json[]) {
    say(`--- ${it.role}: ${it.path}:${it.line_start}-${it.line_end} ${it.qualified_name ?? ""}`);
    say(it.content);
  }
  say(`(${r.estimated_tokens} of ${r.max_tokens} tokens${r.truncated ? ", truncated" : ""})`);
}

/** The subject of a references answer: its name and where it is defined. */
function subjectLine(s: Json): string {
  return `${s.qualified_name} (${s.path}:${s.line_start})`;
}

function showImpls(r: Json): void {
  // A cut list says so: the count is of what is shown.
  const more = r.truncated ? ` shown, more with a higher --limit` : "";
  say(`${subjectLine(r.symbol)}: ${counted(r.returned, "implementation")}${more}`);
  printTable(
    ["type", "location", "resolution", "via"],
    (r.implementations as Json[]).map((x) => [
      x.symbol.qualified_name,
      `${x.symbol.path}:${x.symbol.line_start}`,
      x.resolution,
      x.via === "heritage" && x.depth > 1 ? `heritage (${x.depth} levels)` : x.via,
    ]),
  );
  if (r.unresolved_candidates) {
    say(`${r.unresolved_candidates} candidates (only the names match): --candidates lists them`);
  }
}

function showRefs(r: Json): void {
  const refs: Json[] = r.references ??
    (r.files as Json[]).flatMap((g) => (g.references as Json[]).map((x) => ({ ...x, path: g.path })));
  // The count is of what this page shows; a next page means there are more.
  const more = r.next_cursor ? " on this page (more below)" : "";
  say(`${subjectLine(r.symbol)}: ${counted(r.returned, "reference")}${more}`);
  printTable(
    ["location", "kind", "resolution", "in", "line"],
    refs.map((x) => [
      `${x.path}:${x.line}:${x.column}`,
      x.reference_kind,
      x.resolution,
      x.enclosing?.qualified_name ?? "",
      String(x.line_text ?? "").trim(),
    ]),
  );
  if (r.next_cursor) say(`more: --cursor ${r.next_cursor}`);
  if (r.unresolved_candidates) {
    say(`${r.unresolved_candidates} candidates (only the name matches): --candidates lists them`);
  }
}

function showCallGraph(g: Json): void {
  const names = new Map((g.nodes as Json[]).map((n) => [n.symbol_id, n.qualified_name]));
  printTable(
    ["caller", "callee", "lines", "resolution", "cycle"],
    (g.edges as Json[]).map((e) => [
      names.get(e.from),
      names.get(e.to),
      e.lines.join(","),
      e.resolution,
      e.cycle ? "yes" : "",
    ]),
  );
  if (g.truncated) say(`truncated by ${g.truncated_by.join(", ")}`);
  if (g.unresolved_candidates) {
    say(`${g.unresolved_candidates} candidate edges (only the name matches): --candidates follows them`);
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
function refName(s: Json): string {
  if (s.commit_id) return `${s.ref} (${String(s.commit_id).slice(0, 12)})`;
  const wt = s.working_tree;
  const on = [wt?.branch ? `on ${wt.branch}` : "", wt?.head_commit_id ? `at ${wt.head_commit_id.slice(0, 12)}` : ""];
  return `${s.ref} (working tree${on.some(Boolean) ? " " + on.filter(Boolean).join(" ") : ""})`;
}

/** One change as a few lines: mark, name, place, signature change, and its diff indented. */
function changeLines(c: Json): string[] {
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
  for (const l of String(c.diff ?? "").split("\n").filter(Boolean)) out.push(`    ${l}`);
  if (c.diff_cut) out.push("    … (diff cut)");
  return out;
}

/** A diff for people: the refs, the counts, each change, each listed file, what was cut. */
export function diffLinesForPeople(r: Json): string[] {
  const out = [`base ${refName(r.base)} → head ${refName(r.head)}`];
  if (r.merge_base) out.push(`(from the merge base of ${r.merge_base.base_ref} and ${r.merge_base.head_ref})`);
  const s = r.summary;
  out.push(
    `files: ${s.files_modified} modified, ${s.files_added} added, ${s.files_removed} removed, ${s.files_moved} moved; ` +
      `symbols: ${s.symbols_modified} modified, ${s.symbols_added} added, ${s.symbols_removed} removed, ` +
      `${s.symbols_moved} moved, ${s.symbols_renamed} renamed`,
  );
  for (const c of r.changes as Json[]) out.push(...changeLines(c));
  for (const f of r.files as Json[]) {
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

function showCompare(r: Json): void {
  say(`base ${refName(r.base)} → head ${refName(r.head)}: ${r.status}`);
  say(changeLines(r).join("\n"));
  if (r.status === "unchanged") say(`    ${r.signature_after}`);
}

/** Each tool command's view, by command name. */
const VIEWS: Record<string, (answer: Json) => void> = {
  search: showSearch,
  locate: showLocate,
  outline: showOutline,
  hierarchy: showHierarchy,
  related: showRelated,
  context: showContext,
  refs: showRefs,
  callgraph: showCallGraph,
  impls: showImpls,
  diff: (r) => say(diffLinesForPeople(r).join("\n")),
  compare: showCompare,
  open: (r) => Deno.stdout.writeSync(new TextEncoder().encode(String(r.content ?? ""))),
};
