/**
 * What the ref-comparing tools resolve refs against: the routed project and
 * its live index. The views themselves come from `openRefView`
 * (`src/query/ref_views.ts`), the one place a ref name becomes a view.
 */
import type { RefSource } from "../../query/ref_views.ts";
import type { ToolContext } from "./tool.ts";

/** The ref source of a routed call. */
export function refSourceOf(ctx: ToolContext): RefSource {
  return {
    project: ctx.route.project,
    working: () => ctx.view(),
    maxFileBytes: ctx.runtime.config.maxFileBytes,
  };
}
