/**
 * suggest_followup_queries: the next calls worth making after a search, each
 * a tool name with exact arguments and the indexed fact that makes it worth
 * making — a name defined in several places (pick the definition), stored
 * uses of a symbol (list them), callers of a function (walk them), members of
 * a type (see the hierarchy), the file to outline (only an indexed one). Built
 * from what the index holds for the results, never from templates that ignore
 * the repository.
 * Reads only the open index.
 */
import type { Db } from "../state/db.ts";
import { CruxeError } from "../core/errors.ts";
import { splitIdentifier } from "../core/identifiers.ts";
import {
  definitionCount,
  memberCount,
  referenceCount,
  referenceNameId,
  referencesInLines,
} from "../state/read/references.ts";
import { parseLimit, requireQuery } from "./_input_rules.ts";
import { resolveSymbol } from "./_resolve_symbol.ts";
import { suggestSymbols } from "./_suggest_symbols.ts";
import { CALLABLE_KINDS, TYPE_KINDS } from "./_symbol_row.ts";
import type { SymbolRow } from "../state/read/rows.ts";
import { hasFile } from "../state/read/files.ts";
import { searchCode } from "./search_code.ts";
import { TOOL } from "../core/tool_names.ts";

/** A result of an earlier call that follow-ups may start from. */
export interface PreviousResult {
  result_id?: string;
  symbol_id?: string;
  path?: string;
  name?: string;
}

/** Inputs of suggest_followup_queries. */
export interface FollowupInput {
  query: string;
  previous_results?: PreviousResult[];
  limit?: number;
}

/** One suggested call, ready to make as-is. */
export interface Followup {
  tool: string;
  arguments: Record<string, unknown>;
  reason: string;
}

/** The answer of suggest_followup_queries (without the protocol metadata). */
export interface FollowupResult {
  query: string;
  /** Where the suggestions start from: the given previous results, or a fresh search of `query`. */
  based_on: "previous_results" | "search";
  suggestions: Followup[];
  truncated: boolean;
}

export const FOLLOWUPS_DEFAULT_LIMIT = 6;
export const FOLLOWUPS_MAX_LIMIT = 20;
const MAX_PREVIOUS = 50;
/** Results followed up at most (the best ones). */
const RESULTS_USED = 3;

/** Records one suggested call (a repeat of an earlier one is dropped). */
type AddFollowup = (tool: string, args: Record<string, unknown>, reason: string) => void;

/** Suggests follow-up calls for a query (see the module comment). */
export function suggestFollowupQueries(db: Db, input: FollowupInput): FollowupResult {
  const { text: query } = requireQuery(input?.query);
  const limit = parseLimit(input?.limit, FOLLOWUPS_DEFAULT_LIMIT, FOLLOWUPS_MAX_LIMIT);
  const prev = input?.previous_results;
  if (prev !== undefined && prev !== null && (!Array.isArray(prev) || prev.length > MAX_PREVIOUS)) {
    throw new CruxeError("invalid_input", `previous_results must be a list of at most ${MAX_PREVIOUS} results`, {
      field: "previous_results",
    });
  }
  const starts: { symbol?: SymbolRow; path?: string }[] = [];
  const basedOn = prev?.length ? "previous_results" : "search";
  if (prev?.length) {
    for (const p of prev.slice(0, RESULTS_USED)) starts.push(startOf(db, p));
  } else {
    for (const r of searchCode(db, { query, limit: RESULTS_USED }).results) {
      starts.push(r.symbol_id ? startOf(db, { symbol_id: r.symbol_id, path: r.path }) : { path: r.path });
    }
  }

  const out: Followup[] = [];
  const seen = new Set<string>();
  const add: AddFollowup = (tool, args, reason) => {
    const key = tool + JSON.stringify(args);
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ tool, arguments: args, reason });
  };
  for (const s of starts) {
    const sym = s.symbol;
    if (sym) symbolFollowups(db, sym, add);
    const path = sym?.path ?? s.path;
    // Only a file the index holds: a path from the caller may name anything.
    if (path && hasFile(db, path)) add(TOOL.get_file_outline, { path }, `the other definitions of ${path}`);
  }
  if (!starts.length) {
    // Nothing found: spellings the index does hold, then a looser search.
    for (const s of suggestSymbols(db, query, 3)) {
      add(TOOL.locate_symbol, { name: s.name }, `indexed name close to "${query.slice(0, 60)}": ${s.qualified_name}`);
    }
    const words = splitIdentifier(query).slice(0, 4).join(" ");
    if (words && words !== query) add(TOOL.search_code, { query: words }, "the query's words, split apart");
  }
  return { query, based_on: basedOn, suggestions: out.slice(0, limit), truncated: out.length > limit };
}

/** Records the follow-ups one symbol calls for: its other definitions, its uses, its calls both ways, its members. */
function symbolFollowups(db: Db, sym: SymbolRow, add: AddFollowup): void {
  const defs = definitionCount(db, sym.name);
  if (defs > 1) {
    add(TOOL.locate_symbol, { name: sym.name }, `${sym.name} is defined in ${defs} places; compare them`);
  }
  const nameId = referenceNameId(db, sym.name);
  const uses = nameId === null ? 0 : referenceCount(db, nameId);
  if (uses > 0) {
    add(
      TOOL.find_references,
      { symbol_id: sym.symbol_id },
      `${uses} stored use${uses === 1 ? "" : "s"} of the name ${sym.name} to check before changing it`,
    );
  }
  if (CALLABLE_KINDS.has(sym.kind) && uses > 0) {
    add(
      TOOL.get_call_graph,
      { symbol_id: sym.symbol_id, direction: "callers", depth: 2 },
      `who calls ${sym.qualified_name}, two levels up`,
    );
  }
  if (CALLABLE_KINDS.has(sym.kind)) {
    const calls = referencesInLines(db, sym.path, sym.line_start, sym.line_end).filter((r) => r.kind === "call");
    if (calls.length) {
      add(
        TOOL.get_call_graph,
        { symbol_id: sym.symbol_id, direction: "callees", depth: 1 },
        `${sym.qualified_name} makes ${calls.length} call${calls.length === 1 ? "" : "s"}; see what they reach`,
      );
    }
  }
  if (TYPE_KINDS.has(sym.kind)) {
    const members = memberCount(db, sym.id);
    if (members > 0 || uses > 0) {
      add(
        TOOL.get_symbol_hierarchy,
        { symbol_name: sym.qualified_name, path: sym.path, direction: "descendants" },
        `${sym.qualified_name} has ${members} member${members === 1 ? "" : "s"}; see them and its subtypes`,
      );
    }
  }
}

/** The symbol (and file) an earlier result names; unknown handles are skipped, never guessed. */
function startOf(db: Db, p: PreviousResult): { symbol?: SymbolRow; path?: string } {
  if (!p || typeof p !== "object") {
    throw new CruxeError("invalid_input", "each previous result must be an object", { field: "previous_results" });
  }
  const id = [p.symbol_id, p.result_id].find((x) => typeof x === "string" && /^sym_[0-9a-f]{24}$/.test(x));
  if (id) {
    try {
      return { symbol: resolveSymbol(db, id), path: p.path };
    } catch (e) {
      if (!(e instanceof CruxeError) || e.code !== "symbol_not_found") throw e;
    }
  }
  if (typeof p.name === "string" && p.name.trim()) {
    try {
      return { symbol: resolveSymbol(db, p.name, typeof p.path === "string" ? p.path : undefined), path: p.path };
    } catch (e) {
      if (!(e instanceof CruxeError) || !["symbol_not_found", "ambiguous_symbol", "file_not_found"].includes(e.code)) {
        throw e;
      }
    }
  }
  return { path: typeof p.path === "string" ? p.path : undefined };
}
