/**
 * Which tools one server offers: named profiles (`core`, `refs`, …), tool
 * names, or `all`, chosen with `serve-mcp --tools` or the config file's
 * `tools` key. Each tool names its own profile in its definition; a tool
 * outside the set is neither listed nor callable (the dispatcher adds the
 * help tool to every set).
 */
import { CruxeError } from "../core/errors.ts";
import { nearest } from "../query/nearest_word.ts";
import { type Profile, PROFILES } from "./tools/tool.ts";

/** What the tool set reads of a tool: its name and profile. */
export interface ToolEntry {
  name: string;
  profile?: Profile;
}

/** The tool set of a server started without `--tools` or a `tools` config key. */
export const DEFAULT_TOOL_SPEC: readonly Profile[] = ["core", "refs", "index"];

/** Each profile's tools, in the order `tools` lists them. */
export function profileMembers(tools: readonly ToolEntry[]): Record<Profile, string[]> {
  const out = Object.fromEntries(PROFILES.map((p) => [p, [] as string[]])) as Record<Profile, string[]>;
  for (const t of tools) if (t.profile) out[t.profile].push(t.name);
  return out;
}

/**
 * The tool names `spec` selects among `tools` (profile names, tool names or
 * `all`; `undefined` means the default set). Throws `invalid_input` naming
 * an unknown word and the nearest known one.
 */
export function resolveToolSet(spec: readonly string[] | undefined, tools: readonly ToolEntry[]): Set<string> {
  const words = (spec ?? DEFAULT_TOOL_SPEC).flatMap((w) => w.split(",")).map((w) => w.trim()).filter(Boolean);
  if (!words.length) throw new CruxeError("invalid_input", "tools must name at least one profile or tool");
  const known = tools.map((t) => t.name);
  const members = profileMembers(tools);
  const out = new Set<string>();
  for (const w of words) {
    if (w === "all") known.forEach((t) => out.add(t));
    else if (w in members) members[w as Profile].forEach((t) => out.add(t));
    else if (known.includes(w)) out.add(w);
    else {
      const choices = ["all", ...PROFILES, ...known];
      const near = nearest(w, choices);
      throw new CruxeError(
        "invalid_input",
        `unknown tool or profile "${w}" in tools${near ? `; did you mean "${near}"?` : ""} ` +
          `(profiles: all, ${PROFILES.join(", ")}; or tool names)`,
        { value: w, ...(near ? { did_you_mean: near } : {}) },
      );
    }
  }
  return out;
}
