/**
 * What the ref-comparing tools resolve refs against: the routed project, its
 * live index and its indexed refs (`refSourceFor`). The views themselves come
 * from `openRefView` (`src/query/ref_views.ts`), the one place a ref name
 * becomes a view.
 */
import type { RefSource } from "../../query/ref_views.ts";
import { refSourceFor } from "../ref_router.ts";
import type { ToolContext } from "./tool.ts";

/** The ref source of a routed call. */
export function refSourceOf(ctx: ToolContext): RefSource {
  return refSourceFor(ctx.runtime, ctx.route.project, () => ctx.view(), ctx.runtime.config.maxFileBytes);
}
