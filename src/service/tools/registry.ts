/**
 * Every tool the server offers, in `tools/list` order. A tool module that
 * is added here is published, validated and routed by the dispatch
 * pipeline with no other change.
 */
import type { ToolDef } from "./tool.ts";
import { indexRepoTool } from "./index_repo.ts";
import { syncRepoTool } from "./sync_repo.ts";
import { locateSymbolTool } from "./locate_symbol.ts";
import { indexStatusTool } from "./index_status.ts";
import { healthCheckTool } from "./health_check.ts";
import { getFileOutlineTool } from "./get_file_outline.ts";
import { getSymbolHierarchyTool } from "./get_symbol_hierarchy.ts";
import { findRelatedSymbolsTool } from "./find_related_symbols.ts";
import { searchCodeTool } from "./search_code.ts";
import { getCodeContextTool } from "./get_code_context.ts";
import { openFileTool } from "./open_file.ts";
import { askCodeTool } from "./ask_code.ts";
import { findReferencesTool } from "./find_references.ts";
import { getCallGraphTool } from "./get_call_graph.ts";
import { findImplementationsTool } from "./find_implementations.ts";
import { explainRankingTool } from "./explain_ranking.ts";
import { suggestFollowupQueriesTool } from "./suggest_followup_queries.ts";
import { diffContextTool } from "./diff_context.ts";
import { compareSymbolBetweenCommitsTool } from "./compare_symbol_between_commits.ts";
import { listRefsTool } from "./list_refs.ts";
import { switchRefTool } from "./switch_ref.ts";

/** The tool called `name`, if the server has one. */
export function toolNamed(name: string): ToolDef | undefined {
  return TOOLS.find((t) => t.name === name);
}

/** The tools, in `tools/list` order. */
export const TOOLS: ToolDef[] = [
  indexRepoTool,
  syncRepoTool,
  searchCodeTool,
  locateSymbolTool,
  indexStatusTool,
  getFileOutlineTool,
  healthCheckTool,
  getSymbolHierarchyTool,
  findRelatedSymbolsTool,
  getCodeContextTool,
  openFileTool,
  askCodeTool,
  findReferencesTool,
  getCallGraphTool,
  findImplementationsTool,
  explainRankingTool,
  suggestFollowupQueriesTool,
  diffContextTool,
  compareSymbolBetweenCommitsTool,
  listRefsTool,
  switchRefTool,
] as unknown as ToolDef[];
