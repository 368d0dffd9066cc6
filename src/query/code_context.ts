/**
 * get_code_context: the code an agent needs for a query, fitted to a token
 * budget that bounds the whole answer. Candidates follow search_code's
 * ranking. `depth` gives the best results' bodies first; `breadth` gives
 * more definitions as signatures with their neighbours (container, members,
 * callees). Both add the imports of the files involved and the signatures of
 * what the top definitions call, while budget remains. Blocks are taken
 * greedily in priority order; a body longer than its share of the budget is
 * cut around the lines that match the query (with `elided_lines`), another
 * block that does not fit is skipped, and the answer is then `truncated`.
 * Reads only the open index.
 */
import type { Db } from "../state/db.ts";
import { CruxeError } from "../core/errors.ts";
import { parseEnum, requireQuery } from "./_input_rules.ts";
import { type ContextCandidate, contextCandidates } from "./_context_candidates.ts";
import { fileLines } from "./_file_lines.ts";
import { TargetResolver } from "./_resolve_target.ts";
import { containmentChain, goMethodsOf } from "./symbol_hierarchy.ts";
import { jsonTokens, METADATA_TOKENS, TOKEN_ESTIMATOR } from "./_token_estimate.ts";
import { cutAroundMatches, queryStems } from "./_cut_around_matches.ts";
import { CALLABLE_KINDS, TYPE_KINDS } from "./_symbol_row.ts";
import type { SymbolRow } from "../state/read/rows.ts";
import { childrenOf, symbolById, symbolByRowId } from "../state/read/symbols.ts";
import { calleesOf, importLineRange } from "../state/read/edges.ts";

/** Inputs of get_code_context. */
export interface CodeContextInput {
  query: string;
  max_tokens?: number;
  strategy?: "breadth" | "depth";
}

/** Why a block is in the context. */
export type ContextRole = "definition" | "signature" | "snippet" | "imports" | "container" | "member" | "callee";

/** One block of code. Symbol handles are present when the block is one symbol. */
export interface ContextItem {
  role: ContextRole;
  path: string;
  language: string;
  line_start: number;
  line_end: number;
  symbol_id?: string;
  symbol_stable_id?: string;
  kind?: string;
  name?: string;
  qualified_name?: string;
  content: string;
  /** True when `content` was cut to fit the budget. */
  content_truncated?: boolean;
  /**
   * Line ranges (inclusive, file line numbers) left out of a body cut to the
   * budget; each appears in `content` as one `⋯ lines A-B elided` line.
   */
  elided_lines?: [number, number][];
  estimated_tokens: number;
}

/** The answer of get_code_context (without the protocol metadata). */
export interface CodeContextResult {
  query: string;
  strategy: "breadth" | "depth";
  max_tokens: number;
  estimated_tokens: number;
  token_estimator: string;
  items: ContextItem[];
  /**
   * Candidate definitions found for the query, and how many of them are in
   * the answer (as their own item, or inside another item that shows their
   * lines); imports, containers and callees are items but not candidates.
   */
  total_candidates: number;
  included_candidates: number;
  query_truncated: boolean;
  truncated: boolean;
  /** Present when the candidate search stopped at a row cap (its words are nearly everywhere): the answer is partial. */
  meta?: { result_completeness: "partial"; note: string };
}

export const CONTEXT_DEFAULT_TOKENS = 2000;
export const CONTEXT_MIN_TOKENS = 100;
export const CONTEXT_MAX_TOKENS = 100_000;
/** Longest body shown for one definition (a 3,000-line function is not context). */
const MAX_BODY_LINES = 400;
const MAX_IMPORT_LINES = 60;
const SMALL_TYPE_LINES = 20;
/** Lines after a symbol's first line searched for its name (annotations, decorators, attributes). */
const SIGNATURE_SCAN_LINES = 12;

/**
 * A `max_tokens` input: `def` when absent, else an integer in
 * CONTEXT_MIN_TOKENS..CONTEXT_MAX_TOKENS or `invalid_max_tokens`.
 */
export function parseMaxTokens(value: unknown, def = CONTEXT_DEFAULT_TOKENS): number {
  if (value === undefined || value === null) return def;
  if (
    typeof value !== "number" || !Number.isInteger(value) || value < CONTEXT_MIN_TOKENS || value > CONTEXT_MAX_TOKENS
  ) {
    throw new CruxeError(
      "invalid_max_tokens",
      `max_tokens must be an integer between ${CONTEXT_MIN_TOKENS} and ${CONTEXT_MAX_TOKENS}`,
      {
        field: "max_tokens",
        min: CONTEXT_MIN_TOKENS,
        max: CONTEXT_MAX_TOKENS,
        got: typeof value === "number" ? value : String(value).slice(0, 50),
      },
    );
  }
  return value;
}

interface Block {
  item: Omit<ContextItem, "estimated_tokens">;
  /** A body may be cut to fit (around its matching lines) rather than skipped. */
  cuttable: boolean;
  /** A definition or signature of a candidate (counts as included). */
  primary: boolean;
}

/** Smallest share of the budget a body is cut down to before it is left out. */
const MIN_CUT_TOKENS = 48;
/** Smallest share a body gets: room for its fields, its signature and a few matching lines. */
const MIN_BODY_SHARE = 140;
/** Largest share a body after the first gets: a large budget buys more results, not longer ones. */
const MAX_BODY_SHARE = 350;
/** Tokens of an item's `estimated_tokens` field and its separating comma. */
const ESTIMATE_FIELD_TOKENS = 8;

/** Tokens an item costs in the answer, as sent. */
function itemCost(item: Block["item"]): number {
  return jsonTokens(item, ESTIMATE_FIELD_TOKENS);
}

/**
 * A body cut to at most `cap` tokens around the lines that match the query
 * (the signature line stays; left-out runs are listed in `elided_lines`),
 * or null when not even that fits.
 */
function fitBody(item: Block["item"], stems: string[], cap: number): { item: Block["item"]; cost: number } | null {
  const lines = item.content.split("\n");
  let target = cap - itemCost({ ...item, content: "", content_truncated: true, elided_lines: [] });
  for (let attempt = 0; attempt < 4 && target > 8; attempt++) {
    const cut = cutAroundMatches(lines, item.line_start, stems, target);
    const next = { ...item, content: cut.content, content_truncated: true, elided_lines: cut.elided };
    const cost = itemCost(next);
    if (cost <= cap) return { item: next, cost };
    target -= cost - cap + 4;
  }
  return null;
}

/**
 * Context for `query` within `max_tokens` (default 2,000; 100..100,000):
 * the whole answer (items, the answer's other fields and the protocol
 * metadata) is estimated to stay within it. Candidates come in
 * search_code's order; each body is cut around its matching lines when it
 * would take more than its share of the budget (half for the first, a quarter
 * for the others, never under 140 nor, after the first, over 350 tokens), so
 * a long function does not crowd out the next results.
 * Throws `invalid_input` (empty query), `invalid_max_tokens`, `invalid_strategy`.
 */
export function getCodeContext(db: Db, input: CodeContextInput): CodeContextResult {
  const q = requireQuery(input?.query);
  const maxTokens = parseMaxTokens(input.max_tokens);
  const strategy = parseEnum(input.strategy, "strategy", ["breadth", "depth"] as const, "depth", "invalid_strategy");
  const n = Math.min(40, Math.max(5, Math.floor(maxTokens / 100)));
  const { candidates, partial } = contextCandidates(db, q.text, n);
  const builder = new BlockBuilder(db);
  const blocks = strategy === "depth" ? builder.depth(candidates) : builder.breadth(candidates);
  const stems = queryStems(q.text);
  const shownQuery = q.text.length > 200 ? q.text.slice(0, 200) + "…" : q.text;
  const partialMeta = partial ? { meta: { result_completeness: "partial" as const, note: partial } } : {};
  // The answer's own fields (at their widest) and the metadata are paid for first.
  const budget = maxTokens - jsonTokens({
    query: shownQuery,
    strategy,
    max_tokens: maxTokens,
    estimated_tokens: maxTokens,
    token_estimator: TOKEN_ESTIMATOR,
    items: [],
    total_candidates: candidates.length,
    included_candidates: candidates.length,
    query_truncated: q.truncated,
    truncated: false,
    ...partialMeta,
  }, METADATA_TOKENS);

  const items: ContextItem[] = [];
  let used = 0;
  let truncated = false;
  let included = 0;
  const taken = new Set<string>();
  for (const b of blocks) {
    const id = `${b.item.role}:${b.item.path}:${b.item.line_start}:${b.item.line_end}`;
    if (taken.has(id)) continue;
    if (covered(items, b.item)) {
      // Its lines are already in the answer inside another item: it is included.
      if (b.primary) included++;
      continue;
    }
    const room = budget - used;
    const firstBody = !items.some((i) => i.role === "definition" || i.role === "snippet");
    const share = !b.cuttable
      ? room
      : Math.max(MIN_BODY_SHARE, firstBody ? Math.floor(budget / 2) : Math.min(MAX_BODY_SHARE, Math.floor(budget / 4)));
    const cap = Math.min(room, share);
    let item = b.item;
    let cost = itemCost(item);
    if (cost > cap) {
      // The first body may take all the room rather than be left out.
      const fit = !b.cuttable ? null : (cap >= MIN_CUT_TOKENS ? fitBody(item, stems, cap) : null) ??
        (firstBody && room > cap ? fitBody(item, stems, room) : null);
      if (!fit) {
        truncated = true;
        continue;
      }
      // Cut to its share of the budget: the answer is not complete.
      truncated = true;
      item = fit.item;
      cost = fit.cost;
    }
    taken.add(id);
    items.push({ ...item, estimated_tokens: cost });
    used += cost;
    if (b.primary) included++;
  }
  return {
    query: shownQuery,
    strategy,
    max_tokens: maxTokens,
    estimated_tokens: used,
    token_estimator: TOKEN_ESTIMATOR,
    items,
    total_candidates: candidates.length,
    included_candidates: included,
    query_truncated: q.truncated,
    truncated,
    ...partialMeta,
  };
}

/** True when an item already taken shows every line of `b` from the same file. */
function covered(items: ContextItem[], b: Block["item"]): boolean {
  return items.some((i) =>
    i.path === b.path && i.role === "definition" && !i.content_truncated && i.line_start <= b.line_start &&
    i.line_end >= b.line_end && b.role !== "imports"
  );
}

/** Turns candidates into prioritized blocks of code. */
class BlockBuilder {
  private resolver: TargetResolver;

  constructor(private db: Db) {
    this.resolver = new TargetResolver(db);
  }

  /**
   * Bodies of every candidate first, in ranking order (cut to fit when long);
   * then, while budget remains, the containers and imports of the top three
   * and the signatures of what they call.
   */
  depth(cands: ContextCandidate[]): Block[] {
    const bodies: Block[] = cands.map((c) => this.body(c, true));
    const containers: Block[] = [];
    const imports: Block[] = [];
    const callees: Block[] = [];
    const files = new Set<string>();
    for (const c of cands.slice(0, 3)) {
      const path = c.type === "symbol" ? c.row.path : c.path;
      if (!files.has(path)) {
        files.add(path);
        const imp = this.imports(path, c.type === "symbol" ? c.row.language : c.language);
        if (imp) imports.push(imp);
      }
      if (c.type === "symbol") {
        const container = this.container(c.row);
        if (container) containers.push(container);
        callees.push(...this.callees(c.row, 8));
      }
    }
    return [...bodies, ...containers, ...imports, ...callees];
  }

  /** Signatures of many candidates with their container, members and callees; then the top body. */
  breadth(cands: ContextCandidate[]): Block[] {
    const first: Block[] = [];
    const neighbours: Block[] = [];
    const files = new Set<string>();
    for (const c of cands) {
      if (c.type === "chunk") {
        neighbours.push(this.body(c, false));
        continue;
      }
      first.push(this.signature(c.row, "signature", true));
      const container = this.container(c.row);
      if (container) neighbours.push(container);
      for (const m of this.members(c.row).slice(0, 12)) neighbours.push(this.signature(m, "member", false));
      neighbours.push(...this.callees(c.row, 4));
      if (!files.has(c.row.path)) {
        files.add(c.row.path);
        const imp = this.imports(c.row.path, c.row.language);
        if (imp) neighbours.push(imp);
      }
    }
    const top = cands.find((c) => c.type === "symbol");
    const tail = top ? [this.body(top, false)] : [];
    return [...first, ...neighbours, ...tail];
  }

  private body(c: ContextCandidate, cuttable: boolean): Block {
    if (c.type === "chunk") {
      const lines = fileLines(this.db, c.path, c.line_start, Math.min(c.line_end, c.line_start + MAX_BODY_LINES - 1));
      return {
        item: {
          role: "snippet",
          path: c.path,
          language: c.language,
          line_start: c.line_start,
          line_end: c.line_start + Math.max(0, lines.length - 1),
          content: lines.join("\n"),
        },
        cuttable,
        primary: true,
      };
    }
    const r = c.row;
    const end = Math.min(r.line_end, r.line_start + MAX_BODY_LINES - 1);
    const lines = fileLines(this.db, r.path, r.line_start, end);
    return {
      item: {
        ...handles(r),
        role: "definition",
        line_end: r.line_start + Math.max(0, lines.length - 1),
        content: lines.join("\n"),
        ...(end < r.line_end ? { content_truncated: true } : {}),
      },
      cuttable,
      primary: true,
    };
  }

  private signature(r: SymbolRow, role: ContextRole, primary: boolean): Block {
    const doc = r.doc ? r.doc.split("\n").slice(0, 3).join("\n") + "\n" : "";
    // A small type says more in its own lines (fields, embedded types) than in its header.
    if (TYPE_KINDS.has(r.kind) && r.line_end - r.line_start < SMALL_TYPE_LINES) {
      const lines = fileLines(this.db, r.path, r.line_start, r.line_end);
      if (lines.length) {
        return {
          item: { ...handles(r), role, line_end: r.line_start + lines.length - 1, content: doc + lines.join("\n") },
          cuttable: false,
          primary,
        };
      }
    }
    return {
      item: { ...handles(r), role, line_end: this.signatureEnd(r), content: doc + r.signature },
      cuttable: false,
      primary,
    };
  }

  /** The line where `r`'s signature reaches its name (annotations and decorators come before it). */
  private signatureEnd(r: SymbolRow): number {
    const head = fileLines(this.db, r.path, r.line_start, Math.min(r.line_end, r.line_start + SIGNATURE_SCAN_LINES));
    const at = head.findIndex((l) => l.includes(r.name));
    return r.line_start + Math.max(0, at);
  }

  private imports(path: string, language: string): Block | null {
    const r = importLineRange(this.db, path);
    if (r.lo === null || r.hi === null) return null;
    // Multi-line import statements continue past the last import's first line.
    const hi = Math.min(r.hi + 12, r.lo + MAX_IMPORT_LINES - 1);
    const lines = fileLines(this.db, path, r.lo, hi);
    let last = Math.min(r.hi - r.lo, lines.length - 1);
    while (last + 1 < lines.length && /^\s+\S|^\s*[)\]}]/.test(lines[last + 1]) && !/^\s*$/.test(lines[last + 1])) {
      last++;
    }
    const content = lines.slice(0, last + 1).join("\n");
    if (!content.trim()) return null;
    return {
      item: { role: "imports", path, language, line_start: r.lo, line_end: r.lo + last, content },
      cuttable: false,
      primary: false,
    };
  }

  /** The enclosing class or type (for a Go method, its receiver type declared elsewhere in the package). */
  private container(r: SymbolRow): Block | null {
    let p = r.parent_id === null ? undefined : symbolByRowId(this.db, r.parent_id);
    if (!p && r.kind === "method") {
      const outer = containmentChain(this.db, r)[0];
      if (outer && "symbol_id" in outer) {
        p = symbolById(this.db, outer.symbol_id);
      }
    }
    return p ? this.signature(p, "container", false) : null;
  }

  private members(r: SymbolRow): SymbolRow[] {
    if (!TYPE_KINDS.has(r.kind)) return [];
    const kids = childrenOf(this.db, r.id, 200);
    return r.language === "go" ? kids.concat(goMethodsOf(this.db, r, 50)) : kids;
  }

  /** Signatures of what `r` (or, for a type, its methods) calls, resolved by proximity. */
  private callees(r: SymbolRow, max: number): Block[] {
    const sources = CALLABLE_KINDS.has(r.kind) ? [r] : this.members(r).filter((m) => CALLABLE_KINDS.has(m.kind));
    const out: Block[] = [];
    const seen = new Set<number>([r.id]);
    for (const s of sources.slice(0, 20)) {
      for (const c of calleesOf(this.db, [s.id], 60)) {
        if (out.length >= max) return out;
        const t = this.resolver.resolve(c.target, r.path, r.language, CALLABLE_KINDS);
        if (!t || seen.has(t.row.id)) continue;
        seen.add(t.row.id);
        out.push(this.signature(t.row, "callee", false));
      }
    }
    return out;
  }
}

function handles(r: SymbolRow) {
  return {
    path: r.path,
    language: r.language,
    line_start: r.line_start,
    line_end: r.line_end,
    symbol_id: r.symbol_id,
    symbol_stable_id: r.stable_id,
    kind: r.kind,
    name: r.name,
    qualified_name: r.qualified_name,
  };
}
