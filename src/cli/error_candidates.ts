/**
 * The candidates an error carries (`ambiguous_symbol`'s definitions), as
 * lines for people: `path:line: kind qualified_name`, like the query
 * commands' hits, so a person can pick one with `--path` without `--json`.
 */

/** Candidates listed at most; the rest are counted. */
const SHOWN = 20;

interface Candidate {
  path?: unknown;
  line_start?: unknown;
  kind?: unknown;
  qualified_name?: unknown;
  name?: unknown;
}

/** One line per candidate in `data.candidates` (none when there are none), then how many more there are. */
export function candidateLines(data: Record<string, unknown>): string[] {
  const list = Array.isArray(data.candidates) ? (data.candidates as Candidate[]) : [];
  const lines = list.slice(0, SHOWN).filter((c) => typeof c?.path === "string").map((c) =>
    `  ${c.path}:${c.line_start ?? 1}: ${c.kind ?? "symbol"} ${c.qualified_name ?? c.name ?? ""}`.trimEnd()
  );
  const total = typeof data.total_candidates === "number" ? data.total_candidates : list.length;
  if (lines.length && total > lines.length) lines.push(`  … and ${total - lines.length} more`);
  return lines;
}
