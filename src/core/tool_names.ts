/**
 * The name of every tool, spelt once: tool definitions, suggested next calls
 * and follow-up queries use these, so a renamed tool is renamed everywhere (a
 * misspelt one does not compile).
 */
export const TOOL = {
  index_repo: "index_repo",
  sync_repo: "sync_repo",
  search_code: "search_code",
  locate_symbol: "locate_symbol",
  index_status: "index_status",
  get_file_outline: "get_file_outline",
  health_check: "health_check",
  get_symbol_hierarchy: "get_symbol_hierarchy",
  find_related_symbols: "find_related_symbols",
  get_code_context: "get_code_context",
  open_file: "open_file",
  ask_code: "ask_code",
  find_references: "find_references",
  get_call_graph: "get_call_graph",
  find_implementations: "find_implementations",
  explain_ranking: "explain_ranking",
  suggest_followup_queries: "suggest_followup_queries",
  diff_context: "diff_context",
  compare_symbol_between_commits: "compare_symbol_between_commits",
  list_refs: "list_refs",
  switch_ref: "switch_ref",
  tool_help: "tool_help",
} as const;

/** A tool's name. */
export type ToolName = typeof TOOL[keyof typeof TOOL];
