/**
 * Tells an agent why a path of the working tree is not in its index: a query
 * reads only the index, so its `file_not_found` cannot tell a file that does
 * not exist from one the scan leaves out (a `Makefile`, an ignored or
 * oversized one, a directory, one added since the last sync). The live
 * indexer judges the path (`LiveIndexer.explainAbsent`).
 */
import { CruxeError } from "../core/errors.ts";
import { NOT_IN_INDEX } from "../query/_path_suggestions.ts";

/**
 * `err` with its reason when it is a query's `file_not_found` for a path the
 * working tree's index does not hold, judged by `explain`: `data.reason`
 * becomes the scan's verdict (`missing` keeps the message and the suggested
 * paths; a file that exists loses them, they would name other files). Any
 * other error comes back as it was.
 */
export function explainNotIndexed(
  err: unknown,
  explain: (path: string) => { reason: string; message: string },
): unknown {
  if (!(err instanceof CruxeError) || err.code !== "file_not_found" || err.data.reason !== NOT_IN_INDEX) return err;
  const path = err.data.path;
  // A path cut to 300 characters in the answer is not the path asked for.
  if (typeof path !== "string" || path.length >= 300) return err;
  const { reason, message } = explain(path);
  if (reason === "missing") return new CruxeError(err.code, err.message, { ...err.data, reason });
  return new CruxeError(err.code, message, { path, reason });
}
