/** `list_refs`: the refs of the routed workspace that are indexed, and its branches that are not. */
import { SCHEMA_VERSION } from "../../core/version.ts";
import { z } from "zod";
import { gitListRefs, refFor } from "../../io/git.ts";
import { WORKTREE_REF, worktreeStoreDirs } from "../../state/project_refs.ts";
import { listRefStores } from "../../state/ref_stores.ts";
import { jobElsewhere } from "../../query/index_status.ts";
import { sessionRef } from "../ref_router.ts";
import { defineTool } from "./tool.ts";
import { TOOL } from "../../core/tool_names.ts";

/** The list_refs tool. */
export const listRefsTool = defineTool({
  name: TOOL.list_refs,
  summary: "The git refs Cruxe can answer from (working tree, indexed refs, branches not yet indexed).",
  profile: "git",
  indexGate: false,
  description: (languages) =>
    'List the git refs of a workspace Cruxe can answer from: the live working tree ("WORKTREE", with its ' +
    "checked-out branch), " +
    "every indexed ref (name, commit, kind, files, symbols, last indexed, state; shared: true when it is " +
    "held in the refs store of another worktree of the repository) and the branches not yet " +
    "indexed (index one with index_repo {ref}). Pass ref to any query tool, or switch_ref to change the default. " +
    `Indexed languages: ${languages.join(", ")}.`,
  input: z.strictObject({}),
  handler: async function listRefsHandler(_args, ctx) {
    const rt = ctx.runtime;
    const project = ctx.route.project;
    const dir = rt.registry.projectDir(project.project_id);
    const live = rt.readers.view(project);
    const repoRefs = await gitListRefs(project.repo_root) ?? [];
    const byCommit = new Map<string, string[]>();
    for (const r of repoRefs) byCommit.set(r.commit, [...byCommit.get(r.commit) ?? [], r.short]);
    // Another worktree's indexed commits serve this one too (same objects): listed as shared.
    const own = listRefStores(dir);
    const shared = worktreeStoreDirs(rt.registry, project).flatMap((d) => listRefStores(d))
      .filter((s) => !own.some((o) => o.commit === s.commit));
    const stores = [...own, ...shared];
    const indexed = stores.map((s) => ({
      ref: s.refName ?? s.commit,
      commit: s.commit,
      kind: s.kind ?? "commit",
      /** Every branch, tag or remote branch that points at this commit now. */
      names: byCommit.get(s.commit) ?? [],
      file_count: s.fileCount,
      symbol_count: s.symbolCount,
      last_indexed_at: s.lastIndexedAt,
      // Written by an older build: queries answer index_incompatible until index_repo rebuilds it.
      state: s.schemaVersion === SCHEMA_VERSION ? "ready" : "reindex_required",
      ...(shared.includes(s) ? { shared: true } : {}),
    }));
    const building = repoRefs
      // Building here, or in another live Cruxe process.
      .filter((r) =>
        rt.runner.activeRef(project.project_id, r.commit) || jobElsewhere(rt.registry, project.project_id, r.commit)
      )
      .filter((r) => !stores.some((s) => s.commit === r.commit))
      .map((r) => ({ ref: r.short, commit: r.commit, kind: r.kind, state: "indexing" }));
    const current = refFor(project.repo_root, project.vcs_mode);
    const covered = new Set([...stores.map((s) => s.commit), ...building.map((b) => b.commit)]);
    // The checked-out branch too: its name means its commit, which the working tree's index is not.
    const notIndexed = repoRefs
      .filter((r) => r.kind === "branch" && !covered.has(r.commit))
      .map((r) => ({ ref: r.short, commit: r.commit, kind: r.kind, state: "not_indexed" }));
    return {
      live: {
        ref: WORKTREE_REF,
        branch: current,
        kind: "working_tree",
        file_count: live.fileCount,
        symbol_count: live.symbolCount,
        last_indexed_at: live.lastIndexedAt,
        state: live.schemaStatus === "compatible" ? "ready" : live.schemaStatus,
      },
      default_ref: sessionRef(rt, ctx.session, project.project_id) ?? WORKTREE_REF,
      indexed: [...indexed, ...building],
      not_indexed: notIndexed,
      max_ref_stores: rt.config.maxRefStores,
    };
  },
});
