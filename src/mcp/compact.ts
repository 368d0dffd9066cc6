/**
 * Compact answers: what an agent reads costs tokens, so by default a query
 * tool's answer drops what repeats or says nothing (fields equal to their
 * file's, empty lists, nulls that mean "none", handles no follow-up call
 * takes), keeping every field the protocol promises and everything a
 * follow-up call needs. `verbose: true` on the call returns every field.
 */
import { z } from "zod";

/** The `verbose` argument of the query tools (added by the dispatcher). */
export const verboseArg = z.boolean().describe(
  "Return every field of every result (ids, file-level fields repeated on each symbol). Default false: compact.",
);

type Json = Record<string, unknown>;

/** `o` without the listed keys, and without keys whose value is null, undefined or "". */
function without(o: Json, keys: readonly string[]): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(o)) {
    if (!keys.includes(k) && v !== null && v !== undefined && v !== "") out[k] = v;
  }
  return out;
}

/** Most snippet lines in a compact search result (the rest is one `open_file` away: path and lines stay). */
export const COMPACT_SNIPPET_LINES = 4;

/** The first lines of a snippet, with `…` when lines were left out. */
function shortSnippet(s: unknown): unknown {
  if (typeof s !== "string") return s;
  const lines = s.split("\n");
  return lines.length > COMPACT_SNIPPET_LINES ? lines.slice(0, COMPACT_SNIPPET_LINES).join("\n") + "\n…" : s;
}

/**
 * An outline node without what its file already says (path, language) and
 * without the handles (its name with the outline's path is what follow-up
 * calls take); `children` only when there are some, `qualified_name` only
 * when it is not just the name.
 */
function outlineNode(n: Json, parentQname?: unknown): Json {
  const out = without(n, ["symbol_id", "symbol_stable_id", "path", "language", "children", "qualified_name"]);
  // A child's qualified name is its parent's plus its own name: said once, at the top.
  if (n.qualified_name !== n.name && n.qualified_name !== `${parentQname}.${n.name}`) {
    out.qualified_name = n.qualified_name;
  }
  const children = n.children as Json[] | undefined;
  if (children?.length) out.children = children.map((c) => outlineNode(c, n.qualified_name));
  return out;
}

/** A symbol listed beside another (hierarchy, related, context): its row handle stays, the stable id goes. */
function relatedSymbol(n: Json, of: Json | undefined): Json {
  const out = without(n, ["symbol_stable_id"]);
  if (out.language === of?.language) delete out.language;
  // A member's qualified name is the symbol's plus its own name.
  if (of && out.qualified_name === `${of.qualified_name}.${out.name}`) delete out.qualified_name;
  return out;
}

/** Compacts one tool's answer body; tools without an entry answer in full. */
const COMPACTORS: Record<string, (body: Json) => Json> = {
  // Retrieval results keep every handle the protocol promises; snippets are cut to their first lines.
  search_code: (b) => ({
    ...b,
    results: (b.results as Json[] | undefined)?.map((r) => ({ ...r, snippet: shortSnippet(r.snippet) })),
  }),
  // Already what the protocol lists, one row per definition: the same either way.
  locate_symbol: (b) => b,
  get_file_outline: (b) => ({ ...without(b, ["symbols"]), symbols: (b.symbols as Json[]).map(outlineNode) }),
  get_symbol_hierarchy: (b) => ({
    ...b,
    containment: (b.containment as Json[] | undefined)?.map((n) => relatedSymbol(n, b.symbol as Json)),
    type_hierarchy: (b.type_hierarchy as Json[] | undefined)?.map((n) => relatedSymbol(n, b.symbol as Json)),
  }),
  find_related_symbols: (b) => ({
    ...b,
    related: (b.related as Json[] | undefined)?.map((n) => relatedSymbol(n, b.symbol as Json)),
  }),
  get_code_context: (b) => ({
    ...b,
    items: (b.items as Json[] | undefined)?.map((it) => {
      const out = without(it, ["symbol_stable_id", "language", "estimated_tokens"]);
      if (out.qualified_name === out.name) delete out.qualified_name;
      return out;
    }),
  }),
};

/** True when `tool` has a compact form (and so takes `verbose`). */
export function hasCompactForm(tool: string): boolean {
  return tool in COMPACTORS;
}

/** The compact form of `tool`'s answer `body` (the body itself when the tool has none). */
export function compactAnswer<T extends object>(tool: string, body: T): T {
  const f = COMPACTORS[tool];
  return f ? f(body as Json) as T : body;
}
