/**
 * Which tools one server offers: named profiles (`core`, `refs`, …), tool
 * names, or `all`, chosen with `serve-mcp --tools` or the config file's
 * `tools` key. A tool outside the set is neither listed nor callable;
 * `tool_help` is always in it.
 */
import { CruxeError } from "../core/errors.ts";
import { nearest } from "../query/nearest_word.ts";

/** Named tool sets. `all` is every tool and is not listed here. */
export const TOOL_PROFILES: Readonly<Record<string, readonly string[]>> = {
  core: ["search_code", "locate_symbol", "get_file_outline", "get_code_context", "open_file"],
  refs: ["find_references", "get_call_graph", "get_symbol_hierarchy", "find_related_symbols"],
  index: ["index_repo", "sync_repo", "index_status", "health_check"],
  git: ["list_refs", "switch_ref", "diff_context", "compare_symbol_between_commits"],
  ask: ["ask_code", "explain_ranking", "suggest_followup_queries"],
};

/** The tool set of a server started without `--tools` or a `tools` config key. */
export const DEFAULT_TOOL_SPEC: readonly string[] = ["core", "refs", "index"];

/** The tool that describes the others; in every set. */
export const HELP_TOOL = "tool_help";

/**
 * The tool names `spec` selects among `known` (profile names, tool names or
 * `all`; `undefined` means the default set), always with `tool_help`.
 * Throws `invalid_input` naming an unknown word and the nearest known one.
 */
export function resolveToolSet(spec: readonly string[] | undefined, known: readonly string[]): Set<string> {
  const words = (spec ?? DEFAULT_TOOL_SPEC).flatMap((w) => w.split(",")).map((w) => w.trim()).filter(Boolean);
  if (!words.length) throw new CruxeError("invalid_input", "tools must name at least one profile or tool");
  const out = new Set<string>([HELP_TOOL]);
  for (const w of words) {
    if (w === "all") known.forEach((t) => out.add(t));
    else if (w in TOOL_PROFILES) TOOL_PROFILES[w].filter((t) => known.includes(t)).forEach((t) => out.add(t));
    else if (known.includes(w) || w === HELP_TOOL) out.add(w);
    else {
      const choices = ["all", ...Object.keys(TOOL_PROFILES), ...known];
      const near = nearest(w, choices);
      throw new CruxeError(
        "invalid_input",
        `unknown tool or profile "${w}" in tools${near ? `; did you mean "${near}"?` : ""} ` +
          `(profiles: all, ${Object.keys(TOOL_PROFILES).join(", ")}; or tool names)`,
        { value: w, ...(near ? { did_you_mean: near } : {}) },
      );
    }
  }
  return out;
}

/** The profiles that contain `tool`. */
export function profilesOf(tool: string): string[] {
  return Object.entries(TOOL_PROFILES).filter(([, ts]) => ts.includes(tool)).map(([p]) => p);
}
