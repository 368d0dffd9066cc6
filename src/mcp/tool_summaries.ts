/**
 * The short descriptions `tools/list` publishes: what each tool answers and
 * when to pick it, in a sentence or two. Each tool's full description (its
 * arguments' meaning, paging, errors) is what `tool_help` returns; what
 * every tool shares is in the session's `instructions`.
 */

/** Short description by tool name. A tool without one is listed with its full description. */
export const TOOL_SUMMARIES: Readonly<Record<string, string>> = {
  index_repo:
    "Index (force: re-index) a workspace so the other tools can answer. Use when a tool says index_not_ready, " +
    "or force: true on index_incompatible. Returns a job; wait: true waits for it.",
  sync_repo: "Re-index only changed files. Use when metadata.freshness_status is stale or after editing files.",
  search_code:
    "Search code by anything: identifier, path, error string or natural language; symbols, snippets and files " +
    "ranked together. Use when you do not know where something is (locate_symbol when you know the name).",
  locate_symbol:
    "Where a symbol is defined, by plain or qualified name: file:line, signature, handles. Use when you know " +
    "or can guess an identifier.",
  index_status:
    "A workspace's index: status, counts, active job progress, recent jobs. Poll it after index_repo/sync_repo.",
  get_file_outline:
    "One file's symbols as a tree with kinds, signatures and line ranges, without reading it. Use before " +
    "reading a file or to find the lines to open.",
  health_check: "Is the server ready: version, stores, grammars, each project's index state and jobs.",
  get_symbol_hierarchy:
    "A symbol's containing scopes and base types (ancestors) or members and subtypes (descendants). Use to " +
    "understand a class or interface.",
  find_related_symbols:
    "Symbols around one symbol: callers, callees, parent, children, subtypes, imports, neighbours. Use for " +
    "impact analysis before a change.",
  get_code_context:
    "The code relevant to a question (definitions, bodies, related symbols) as blocks within max_tokens. Use " +
    "to load context before editing or explaining code.",
  open_file: "Read lines of a repository file from disk (at most 200 per call; page with startLine). Use after " +
    "search_code/locate_symbol to see code in full.",
  ask_code: "Answer a question about the code from retrieved evidence, cited [E1]; without a model configured, the " +
    "evidence only.",
  find_references:
    "Every use of a symbol (calls, type uses, imports, accesses) with path, line and resolution; paged. Use " +
    "before changing a signature or to find a function's tests.",
  get_call_graph:
    "Callers and/or callees of a symbol, transitively (depth 1..3). Use to follow a bug upstream or see the " +
    "blast radius of a change.",
  explain_ranking: "Why one search_code result ranked where it did (sources, signals, score).",
  suggest_followup_queries: "The next calls worth making for a query, with exact arguments and the reason.",
  diff_context:
    "What changed between two refs (or the working tree): symbols added, removed, modified, moved, renamed, " +
    "with diffs, within max_tokens. Use to review a branch or uncommitted edits.",
  compare_symbol_between_commits: "One symbol at two refs: signature, location, body diff and status.",
  list_refs: "The git refs Cruxe can answer from (working tree, indexed refs, branches not yet indexed).",
  switch_ref: "Make a ref the default of this session's later queries (stdio); WORKTREE returns to the files.",
  tool_help: "The full description and argument schema of a tool (or, without tool, every tool and profile, " +
    "including tools this server does not enable).",
};
