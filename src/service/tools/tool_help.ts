/** `tool_help`: a tool's full description and argument schema, or the catalogue of every tool and profile. */
import { z } from "zod";
import { CruxeError } from "../../core/errors.ts";
import { nearest } from "../../query/nearest_word.ts";
import { defineTool, type Profile, type ToolDef } from "./tool.ts";
import { profileMembers } from "../tool_set.ts";
import { TOOL } from "../../core/tool_names.ts";

/** What `tool_help` knows of one tool. */
export interface ToolHelpEntry {
  name: string;
  summary: string;
  profile?: Profile;
  description: string;
  input_schema: unknown;
  enabled: boolean;
}

/** The tool_help tool over `catalog` (every tool, enabled or not, with its full listing). */
export function toolHelpTool(catalog: () => ToolHelpEntry[]): ToolDef {
  return defineTool({
    name: TOOL.tool_help,
    summary: "The full description and argument schema of a tool (or, without tool, every tool and profile, " +
      "including tools this server does not enable).",
    indexGate: false,
    serverWide: true,
    description: () =>
      "The full description and argument schema of one tool (tool: its name), or without tool the list of every " +
      "tool with a line each, whether this server enables it, and the named profiles (serve-mcp --tools).",
    input: z.strictObject({
      tool: z.string().max(128).optional().describe("A tool's name. Omit for the list of every tool."),
    }),
    handler: function toolHelpHandler(args) {
      const all = catalog();
      if (args.tool === undefined) {
        return {
          tools: all.map((t) => ({ name: t.name, enabled: t.enabled, summary: t.summary })),
          profiles: { all: all.map((t) => t.name), ...profileMembers(all) },
          note: "A tool that is not enabled needs the server started with --tools naming it or a profile holding it.",
        };
      }
      const t = all.find((e) => e.name === args.tool);
      if (!t) {
        const near = nearest(args.tool, all.map((e) => e.name));
        throw new CruxeError(
          "invalid_input",
          `No tool named "${args.tool}"${near ? `; did you mean "${near}"?` : ""}`,
          { field: "tool", ...(near ? { did_you_mean: near } : {}) },
        );
      }
      return {
        name: t.name,
        enabled: t.enabled,
        profiles: t.profile ? [t.profile] : [],
        description: t.description,
        input_schema: t.input_schema,
      };
    },
  }) as unknown as ToolDef;
}
