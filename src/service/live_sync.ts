/**
 * The live index as answers see it: results that point into files known to
 * be deleted (and not yet synced) are dropped, and a tool asked about such a
 * file answers `file_not_found`. Watching, scanning and syncing are the live
 * indexer's (`src/index/live_indexer.ts`); the server starts it and reads it.
 */
import { CruxeError } from "../core/errors.ts";
import type { ProjectRow } from "../state/registry.ts";
import type { LiveIndexer } from "../index/live_indexer.ts";

/**
 * Drops results that point into files known to be deleted (arrays of
 * objects with a `path`, in this workspace's repository), and refuses an
 * answer about one such file. Returns the body unchanged when nothing is
 * pending deletion.
 */
export function dropDeleted(
  live: LiveIndexer,
  project: ProjectRow,
  body: Record<string, unknown>,
): Record<string, unknown> {
  const id = project.project_id;
  if (!live.hasDeletions(id)) return body;
  const gone = (x: unknown) => {
    const r = x as { path?: unknown; repo?: unknown } | null;
    return !!r && typeof r.path === "string" && (r.repo === undefined || r.repo === project.name) &&
      live.isDeleted(id, r.path);
  };
  if (typeof body.path === "string" && live.isDeleted(id, body.path)) {
    throw new CruxeError(
      "file_not_found",
      `${body.path} was deleted; the index is catching up (metadata.freshness_status is syncing).`,
      { path: body.path },
    );
  }
  const out: Record<string, unknown> = { ...body };
  for (const [key, value] of Object.entries(body)) {
    if (Array.isArray(value) && value.some(gone)) out[key] = value.filter((x) => !gone(x));
  }
  return out;
}
