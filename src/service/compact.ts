/**
 * Compact answers: what an agent reads costs tokens, so by default a query
 * tool's answer says each thing once and leaves out what says nothing,
 * keeping every handle the protocol promises and what a follow-up call
 * needs. `verbose: true` on the call returns every field. The rules, each
 * one reversible by the reader:
 * - no `null`, `""`, `false` flag (an absent flag is false) or empty list
 *   (but the answer's own list, `results`, `symbols`, `items`, `related`,
 *   `containment`, is there even when empty);
 * - inputs echoed back at their default are left out (`depth` "all",
 *   `direction` "ancestors", `strategy` "depth"), and so are the echoed query
 *   and the estimator's description; an outline page that says its
 *   `next_call` leaves out the `next_cursor` that call holds;
 * - `language` is said once at the top when the items share it; an item that
 *   differs says its own;
 * - handles: a retrieval result (`search_code`, `locate_symbol`) keeps
 *   `symbol_id` and `symbol_stable_id` when it is a symbol and `result_id`
 *   when it is not; `result_type` is read from them (no `result_id`: a
 *   symbol, whose `result_id` is its `symbol_id`; `snip_…`: a snippet;
 *   `file_…`: a file); the symbol an answer is about, and a context
 *   item, keep `symbol_id`; a symbol listed in an outline, hierarchy or
 *   related list keeps none: its name (qualified when the list says so) with
 *   its path is what `symbol_name` + `path` take;
 * - `qualified_name` is said only when it says more than the name and path:
 *   not when it is the name, or the file's module (the file's name without
 *   extension, or its directory's name) plus the name; in a list beside
 *   another symbol, not when it is the parent's qualified name plus the name,
 *   nor the start of the symbol's own; the symbol's own is left out of a
 *   hierarchy whose ancestors, outermost first, and its name spell it;
 * - a symbol listed beside another (or in a file's outline) says `path` only
 *   when it is in another file, `line_end` only when it is not `line_start`, `signature`
 *   only when it says more than its kind, modifiers and name, and
 *   `visibility` only when its signature does not begin with it;
 * - snippets keep their first lines, common indentation removed, long lines
 *   cut (`open_file` with the path and lines gives the rest); a context
 *   item's `⋯ lines A-B elided` lines stand for its `elided_lines`;
 * - a search result's `match_lines` keeps its best line, indentation
 *   removed, a long line cut.
 */
import { z } from "zod";

/** The `verbose` argument of the query tools (added by the dispatcher). */
export const verboseArg = z.boolean().describe(
  "Return every field of every result (ids, file-level fields repeated on each symbol, echoed inputs). " +
    "Default false: compact (each thing said once; absent flags are false; an item without path or language " +
    "has its parent's or the answer's).",
);

type Json = Record<string, unknown>;

/** Flags whose `false` says nothing: in a compact answer an absent flag is false. */
const FALSE_BY_DEFAULT = new Set(["truncated", "query_truncated", "content_truncated", "generated"]);

/** `o` without the listed keys and without what says nothing (null, "", [], a default `false`). */
function without(o: Json, keys: readonly string[] = []): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(o)) {
    if (keys.includes(k) || v === null || v === undefined || v === "") continue;
    if (Array.isArray(v) && v.length === 0) continue;
    if (v === false && FALSE_BY_DEFAULT.has(k)) continue;
    out[k] = v;
  }
  return out;
}

/** `o` without the listed keys when they hold the given (default) values. */
function withoutDefaults(o: Json, defaults: Json): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(o)) if (!(k in defaults && defaults[k] === v)) out[k] = v;
  return out;
}

/** Most snippet lines in a compact search result. */
export const COMPACT_SNIPPET_LINES = 2;
/** Longest snippet line in a compact search result (longer ones end in `…`). */
export const COMPACT_SNIPPET_LINE_CHARS = 100;

/** The first lines of a snippet, common indentation removed, long lines cut, `…` when lines were left out. */
export function shortSnippet(s: unknown): unknown {
  if (typeof s !== "string") return s;
  const all = s.split("\n");
  const lines = all.slice(0, COMPACT_SNIPPET_LINES);
  while (lines.length > 1 && lines[lines.length - 1].trim() === "") lines.pop();
  const indent = Math.min(...lines.filter((l) => l.trim() !== "").map((l) => l.match(/^[ \t]*/)![0].length));
  const cut = lines.map((l) => {
    const t = Number.isFinite(indent) ? l.slice(indent) : l;
    return t.length > COMPACT_SNIPPET_LINE_CHARS ? t.slice(0, COMPACT_SNIPPET_LINE_CHARS) + "…" : t;
  });
  return cut.join("\n") + (all.length > COMPACT_SNIPPET_LINES ? "\n…" : "");
}

/** The best of a result's `match_lines` (the first), its indentation removed and a long line cut with `…`. */
function bestMatchLine(lines: { line: number; text: string }[]): { line: number; text: string }[] {
  return lines.slice(0, 1).map(({ line, text }) => {
    const t = text.trimStart();
    return { line, text: t.length > COMPACT_SNIPPET_LINE_CHARS ? t.slice(0, COMPACT_SNIPPET_LINE_CHARS) + "…" : t };
  });
}

/**
 * Says the items' shared language once: returns the most common `language`
 * among `items` (or undefined when none has one) and removes it from the
 * items that have it; an item in another language keeps its own.
 */
function hoistLanguage(items: Json[]): string | undefined {
  const counts = new Map<unknown, number>();
  for (const it of items) {
    if (typeof it.language === "string") counts.set(it.language, (counts.get(it.language) ?? 0) + 1);
  }
  let top: string | undefined;
  for (const [lang, n] of counts) if (top === undefined || n > counts.get(top)!) top = lang as string;
  for (const it of items) if (it.language === top) delete it.language;
  return top;
}

/** `items` compacted one by one, then their shared language said once in `body` (as `language`). */
function listWithLanguage(body: Json, key: string, item: (it: Json) => Json): Json {
  const items = (body[key] as Json[] | undefined)?.map(item);
  if (!items) return without(body);
  const language = body.language ?? hoistLanguage(items);
  const rest = without(body, [key, "language"]);
  // The list keeps its place in the answer, with the shared language just before it.
  const out: Json = {};
  for (const k of Object.keys(body)) {
    if (k === key) Object.assign(out, language ? { language } : {}, { [key]: items });
    else if (k in rest) out[k] = rest[k];
  }
  return out;
}

/** The `result_id` prefix of each non-symbol result type. */
const RESULT_ID_PREFIX: Record<string, string> = { snippet: "snip", file: "file" };

/**
 * True when qualified name `qn` says no more than `name` in the file at
 * `path`: it is the name, or the file's module (the file's name without its
 * extension, or its directory's name) plus the name.
 */
function plainQualifiedName(qn: unknown, name: unknown, path: unknown): boolean {
  if (qn === name) return true;
  if (typeof path !== "string" || typeof qn !== "string") return false;
  const parts = path.split("/");
  const stem = parts[parts.length - 1].replace(/\.[^.]*$/, "");
  const dir = parts.length > 1 ? parts[parts.length - 2] : undefined;
  return qn === `${stem}.${name}` || (dir !== undefined && qn === `${dir}.${name}`);
}

/** A retrieval result: the protocol's handles stay; nothing that says nothing, a short snippet. */
function retrievalResult(r: Json): Json {
  const out = without(r);
  if (plainQualifiedName(out.qualified_name, out.name, out.path)) delete out.qualified_name;
  if ("snippet" in out) out.snippet = shortSnippet(out.snippet);
  if (Array.isArray(out.match_lines)) out.match_lines = bestMatchLine(out.match_lines);
  // A symbol result is named by its symbol_id (explain_ranking takes either); any other's id prefix says its type.
  if (out.result_type === "symbol" && out.result_id === out.symbol_id) delete out.result_id;
  if (
    typeof out.result_id === "string" && out.result_id.startsWith(`${RESULT_ID_PREFIX[out.result_type as string]}_`)
  ) {
    delete out.result_type;
  }
  if (out.result_type === "symbol" && !("result_id" in out)) delete out.result_type;
  return out;
}

/** Words a declaration may hold besides its name without saying more than its kind. */
const DECLARATION_WORDS = new Set([
  "abstract",
  "async",
  "class",
  "const",
  "def",
  "enum",
  "export",
  "final",
  "fn",
  "func",
  "function",
  "interface",
  "let",
  "module",
  "mod",
  "namespace",
  "object",
  "private",
  "protected",
  "pub",
  "public",
  "readonly",
  "record",
  "sealed",
  "static",
  "struct",
  "trait",
  "type",
  "var",
]);

/** True when `signature` is only declaration words and `name` ("class Router", "type Claims struct"). */
function saysOnlyKindAndName(signature: unknown, name: unknown): boolean {
  if (typeof signature !== "string") return false;
  const words = signature.trim().split(/\s+/);
  return words.includes(String(name)) && words.every((w) => w === name || DECLARATION_WORDS.has(w));
}

/**
 * A symbol listed beside another symbol `of` (or in the outline of a file
 * `of`): without its handles and without what `of`, its parent or its own
 * other fields already say.
 */
function besideOf(n: Json, of: Json | undefined, parentQname?: unknown): Json {
  const out = without(n, ["symbol_id", "symbol_stable_id"]);
  if (of && out.path === of.path) delete out.path;
  if (of && out.language === of.language) delete out.language;
  const qn = out.qualified_name;
  if (plainQualifiedName(qn, out.name, n.path) || (parentQname !== undefined && qn === `${parentQname}.${out.name}`)) {
    delete out.qualified_name;
  }
  if (out.line_end === out.line_start) delete out.line_end;
  if (out.line === out.line_start) delete out.line;
  if (saysOnlyKindAndName(out.signature, out.name)) delete out.signature;
  if (typeof out.signature === "string" && out.signature.startsWith(`${out.visibility} `)) delete out.visibility;
  return out;
}

/** An outline node: its file's path and language and its handles left out; children only when there are some. */
function outlineNode(n: Json, file: Json, parentQname?: unknown): Json {
  const out = besideOf(without(n, ["children"]), file, parentQname);
  const children = n.children as Json[] | undefined;
  if (children?.length) out.children = children.map((c) => outlineNode(c, file, n.qualified_name));
  return out;
}

/**
 * A symbol in another's hierarchy. An ancestor's qualified name is left out when the
 * symbol's begins with it; a member's when it is the symbol's plus its name.
 */
function hierarchyNode(n: Json, of: Json, parentQname: unknown): Json {
  const out = besideOf(n, of, parentQname);
  if (typeof out.qualified_name === "string" && String(of.qualified_name).startsWith(`${out.qualified_name}.`)) {
    delete out.qualified_name;
  }
  const children = n.children as Json[] | undefined;
  if (children?.length) out.children = children.map((c) => hierarchyNode(c, of, n.qualified_name));
  else delete out.children;
  return out;
}

/** A type-hierarchy edge: its resolved symbol compacted beside the asked-about one. */
function typeNode(t: Json, of: Json): Json {
  const out = without(t, ["children", "symbol"]);
  if (t.symbol) out.symbol = besideOf(t.symbol as Json, of);
  const children = t.children as Json[] | undefined;
  if (children?.length) out.children = children.map((c) => typeNode(c, of));
  return out;
}

/** The symbol an answer is about: its `symbol_id` stays for follow-up calls about it. */
function subject(sym: Json): Json {
  const out = without(sym, ["symbol_stable_id"]);
  if (plainQualifiedName(out.qualified_name, out.name, out.path)) delete out.qualified_name;
  return out;
}

/** Relations that only say where a symbol is: a symbol listed under a closer relation is not listed again. */
const PLACE_RELATIONS = new Set(["same_file", "same_module"]);

/** Related symbols beside `of`; one listed under a closer relation is not listed again as same file/module. */
function relatedList(related: Json[], of: Json): Json[] {
  const seen = new Set(related.filter((r) => !PLACE_RELATIONS.has(r.relation as string)).map((r) => r.symbol_id));
  return related
    .filter((r) => !(PLACE_RELATIONS.has(r.relation as string) && r.symbol_id && seen.has(r.symbol_id)))
    .map((r) => besideOf(r, of, of.qualified_name));
}

/** The compact form of a retrieval answer (search_code, locate_symbol): its results with handles. */
export const compactRetrieval = (b: Json): Json => listWithLanguage(b, "results", retrievalResult);

/** The compact form of a file outline (a page's next_call holds its next_cursor). */
export const compactOutline = (b: Json): Json => ({
  ...withoutDefaults(without(b, ["symbols", ...(b.next_call ? ["next_cursor"] : [])]), { depth: "all" }),
  symbols: (b.symbols as Json[]).map((n) => outlineNode(n, b)),
});

/** The compact form of a symbol hierarchy. */
export function compactHierarchy(b: Json): Json {
  const sym = b.symbol as Json;
  const symbol = subject(sym);
  // Ancestors listed up to the module spell the symbol's qualified name out.
  const names = (b.containment as Json[]).map((n) => n.name).reverse();
  if (b.direction === "ancestors" && [...names, sym.name].join(".") === sym.qualified_name) {
    delete symbol.qualified_name;
  }
  return withoutDefaults(
    {
      ...without({ ...b, type_hierarchy: (b.type_hierarchy as Json[] | undefined)?.map((t) => typeNode(t, sym)) }),
      symbol,
      containment: (b.containment as Json[]).map((n) => hierarchyNode(n, sym, sym.qualified_name)),
    },
    { direction: "ancestors" },
  );
}

/** The compact form of a related-symbols answer. */
export function compactRelated(b: Json): Json {
  const sym = b.symbol as Json;
  return { ...without(b, ["related"]), symbol: subject(sym), related: relatedList(b.related as Json[], sym) };
}

/**
 * The compact form of a code-context answer. The body's size is the caller's budget; what compaction saves is
 * room, not the answer's worth.
 */
export const compactContext = (b: Json): Json =>
  withoutDefaults(
    listWithLanguage(without(b, ["query", "token_estimator"]), "items", (it) => {
      // The content's `⋯ lines A-B elided` lines already say what `elided_lines` lists.
      const out = without(it, ["symbol_stable_id", "estimated_tokens", "elided_lines"]);
      if (plainQualifiedName(out.qualified_name, out.name, out.path)) delete out.qualified_name;
      return out;
    }),
    { strategy: "depth" },
  );
