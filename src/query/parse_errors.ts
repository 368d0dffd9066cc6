/** Files of an index whose parse reported a problem (syntax errors, invalid UTF-8, failed extraction). */
import type { Db } from "../state/db.ts";

/** One file the parser could only partly read, with what it reported. */
export interface FileProblem {
  path: string;
  language: string;
  problem: string;
}

/** Files with a recorded parse problem, by path; at most `limit`, with the true `total`. */
export function filesWithParseProblems(db: Db, limit = 1000): { files: FileProblem[]; total: number } {
  const total = (db.prepare("SELECT count(*) AS n FROM files WHERE parse_error IS NOT NULL").get() as { n: number }).n;
  const files = db.prepare(
    "SELECT path, language, parse_error AS problem FROM files WHERE parse_error IS NOT NULL ORDER BY path LIMIT ?",
  ).all(limit) as unknown as FileProblem[];
  return { files, total };
}
