/** Sentences that say why files were left out of an index, for people reading CLI output. */
import { describeExclusion, explainExclusion } from "../index/scan_explain.ts";

/** What each skip reason of an index summary means. */
const SKIP_REASONS: Record<string, (maxFileBytes: number) => string> = {
  ignored: () => "by ignore rules or built-in skips (node_modules, vendor, build output, lock and minified files)",
  tooLarge: (max) => `larger than ${formatBytes(max)} (maxFileBytes / CRUXE_MAX_FILE_BYTES)`,
  symlinks: () => "symlinks or below a symlinked directory (never followed)",
  unreadable: () =>
    "unreadable: files or directories (permission denied, a path too long to open, or gone while reading)",
  binary: () => "binary (a NUL byte in the first 8 KiB)",
};

/** `1 MiB`, `512 KiB`, `100 B`. */
function formatBytes(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} B`;
}

/** One line per non-zero skip count: `  12 ignored by ignore rules …`. */
export function describeSkipped(skipped: Record<string, number>, maxFileBytes: number): string[] {
  return Object.entries(skipped).filter(([, n]) => n > 0).map(([k, n]) =>
    `  ${n} ${SKIP_REASONS[k]?.(maxFileBytes) ?? k}`
  );
}

/**
 * When a scan of `root` found no file: the ignore rule that excluded what
 * is there, as a sentence with the fix; null when no rule explains it.
 */
export function describeEmptyScan(root: string): string | null {
  const cause = explainExclusion(root);
  if (!cause) return null;
  const fix = cause.file === "built-in" ? "" : `; narrow or remove that rule in ${cause.file} to index what it hides`;
  return `No files to index in ${root}: ${describeExclusion(cause)}${fix}.`;
}
