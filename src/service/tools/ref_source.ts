/**
 * What the ref-comparing tools resolve refs against: the routed project, its
 * live index and its indexed refs (`refSourceFor`). The views themselves come
 * from `openRefView` (`src/service/ref_views.ts`), the one place a ref name
 * becomes a view. A ref not indexed yet is indexed by the call itself when it
 * is a small delta from something indexed (`indexForCall`), with progress to
 * the call's token, so the first diff of a branch works.
 */
import { CruxeError } from "../../core/errors.ts";
import type { RefSource } from "../ref_views.ts";
import { refDelta } from "../../state/ref_delta.ts";
import { resolveProjectRef } from "../../state/project_refs.ts";
import { refSourceFor } from "../ref_router.ts";
import { waitForJob } from "./job_call.ts";
import type { ToolContext } from "./tool.ts";

/**
 * Most files a ref-comparing call indexes on its own (parsed: those that
 * differ from the nearest indexed commit or the working tree); past it the
 * call answers `ref_not_indexed` with the `index_repo` call to make.
 */
export const AUTO_INDEX_MAX_FILES = 1000;

/** The ref source of a routed call: head defaults to the working tree, whatever ref the session reads. */
export function refSourceOf(ctx: ToolContext): RefSource {
  const rt = ctx.runtime;
  const project = ctx.route.project;
  return refSourceFor(
    rt,
    project,
    () => rt.readers.view(project),
    rt.config.maxFileBytes,
    (ref, why) => indexForCall(ctx, ref, why),
  );
}

/**
 * Indexes `ref` for the call (see the module comment) and resolves when its
 * commit is published. A commit too far from anything indexed throws `why`
 * with the estimate added; a build that could not start or failed, or a
 * cancelled call, throws `why` as it was. A branch that moved (`why` null) is
 * indexed under the same rule.
 */
async function indexForCall(ctx: ToolContext, ref: string, why: CruxeError | null): Promise<void> {
  const { runtime, route } = ctx;
  const fail = (note = "", extra: Record<string, unknown> = {}) =>
    why ? new CruxeError(why.code, `${why.message}${note}`, { ...why.data, ...extra }) : new Error(note);
  // A commit already being built is joined whatever its size.
  if (why?.code !== "overlay_not_ready") {
    const commit = typeof why?.data?.commit === "string"
      ? why.data.commit
      : (await resolveProjectRef(route.project, ref)).commit;
    const delta = await refDelta(runtime.registry, route.project, commit);
    if (!delta) throw fail(" It was not indexed on the fly: nothing indexed is near it.");
    if (delta.files > AUTO_INDEX_MAX_FILES) {
      throw fail(
        ` It was not indexed on the fly: about ${delta.files} files differ from the nearest indexed state ` +
          `(more than ${AUTO_INDEX_MAX_FILES}).`,
        { estimated_files_to_index: delta.files, auto_index_max_files: AUTO_INDEX_MAX_FILES },
      );
    }
  }
  let started;
  try {
    started = await runtime.runner.startRef(route.project, ref, { force: false });
  } catch (e) {
    throw why ?? e; // another process building it, say: the answer it would have had
  }
  if (started.existing) return;
  const final = await waitForJob(ctx, started.active!);
  if (final?.status !== "published") throw fail();
}
