/**
 * The one entry the team store's front ends call (the CLI's `--store` query
 * commands and `serve-mcp --store`): the core tools' arguments checked with
 * their schemas, the repository and ref resolved, and the answer read from
 * the ref's published snapshot (`src/query/team_reads.ts`). Answers name
 * the repository, ref and commit read in `metadata`. Requires `--allow-net`
 * to the database.
 */
import { z } from "zod";
import { CruxeError } from "../core/errors.ts";
import { LIMITS } from "../query/limits.ts";
import type { PgTeamStore } from "../state/pg/pg_team_store.ts";
import { teamLocate, teamOpenFile, teamOutline, teamSearch, teamTarget } from "../query/team_reads.ts";

/** What every team tool takes besides its own arguments. */
const target = {
  repo: z.string().max(4096).optional().describe(
    "Repository name (or registered path) in the team store; default: the only one.",
  ),
  ref: z.string().max(256).optional().describe("Ref to read (default: the repository's first ref name)."),
};

/** The core tools a team store answers, with their argument schemas and readers. */
const TEAM_TOOLS = {
  locate_symbol: {
    description: "Find where a symbol is defined, by name (or qualified name), in a ref's published index.",
    input: z.strictObject({
      name: z.string().min(1).max(512),
      kind: z.string().max(64).optional(),
      language: z.string().max(64).optional(),
      limit: z.number().int().min(1).max(LIMITS.locate.max).optional(),
      ...target,
    }),
    run: (s: PgTeamStore, t: ReturnType<typeof teamTarget>, a: Record<string, unknown>) =>
      teamLocate(s.pool, t, a as { name: string; kind?: string; language?: string; limit?: number }),
  },
  get_file_outline: {
    description: "The symbols of one file, nested, in a ref's published index.",
    input: z.strictObject({ path: z.string().min(1).max(4096), depth: z.enum(["top", "all"]).optional(), ...target }),
    run: (s: PgTeamStore, t: ReturnType<typeof teamTarget>, a: Record<string, unknown>) =>
      teamOutline(s.pool, t, a as { path: string; depth?: "top" | "all" }),
  },
  search_code: {
    description: "Full-text search of code (identifiers split: `rate limit` finds checkRateLimit) in a ref.",
    input: z.strictObject({
      query: z.string().min(1).max(2000),
      language: z.string().max(64).optional(),
      path_prefix: z.string().max(4096).optional(),
      limit: z.number().int().min(1).max(LIMITS.search.max).optional(),
      ...target,
    }),
    run: (s: PgTeamStore, t: ReturnType<typeof teamTarget>, a: Record<string, unknown>) =>
      teamSearch(s.pool, t, {
        query: a.query as string,
        language: a.language as string | undefined,
        pathPrefix: a.path_prefix as string | undefined,
        limit: a.limit as number | undefined,
      }),
  },
  open_file: {
    description: "A line window of a file of a ref's commit, read from the stored blob.",
    input: z.strictObject({
      path: z.string().min(1).max(4096),
      startLine: z.number().int().optional(),
      endLine: z.number().int().optional(),
      maxBytes: z.number().int().optional(),
      ...target,
    }),
    run: (s: PgTeamStore, t: ReturnType<typeof teamTarget>, a: Record<string, unknown>) =>
      teamOpenFile(s.pool, t, a as { path: string; startLine?: number; endLine?: number; maxBytes?: number }),
  },
} as const;

/** A team tool's name. */
export type TeamToolName = keyof typeof TEAM_TOOLS;

/** Whether a team store answers the tool `name`. */
export function isTeamTool(name: string): name is TeamToolName {
  return Object.hasOwn(TEAM_TOOLS, name);
}

/** The team tools as `tools/list` shows them. */
export function teamToolListing(): { name: string; description: string; inputSchema: Record<string, unknown> }[] {
  return Object.entries(TEAM_TOOLS).map(([name, t]) => ({
    name,
    description: t.description,
    inputSchema: z.toJSONSchema(t.input) as Record<string, unknown>,
  }));
}

/**
 * Answers one call of a team tool: `invalid_input` for an unknown tool or
 * arguments its schema refuses, else the tool's answer (registry errors of
 * the read, such as `ref_not_indexed` or `storage_unavailable`, as thrown).
 */
export async function callTeamTool(store: PgTeamStore, name: string, args: unknown): Promise<object> {
  const tool = (TEAM_TOOLS as Record<string, (typeof TEAM_TOOLS)[TeamToolName]>)[name];
  if (!tool) {
    throw new CruxeError("invalid_input", `The team store answers ${Object.keys(TEAM_TOOLS).join(", ")}; not ${name}`);
  }
  const parsed = tool.input.safeParse(args ?? {});
  if (!parsed.success) {
    throw new CruxeError("invalid_input", `${name}: ${parsed.error.issues.map((i) => i.message).join("; ")}`, {
      issues: parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })),
    });
  }
  const a = parsed.data as Record<string, unknown>;
  const t = teamTarget(await store.listRepos(), a.repo as string | undefined, a.ref as string | undefined);
  return await tool.run(store, t, a);
}
