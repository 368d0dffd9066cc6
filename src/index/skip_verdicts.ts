/**
 * Files of the working tree that a run read and did not index (binary, or
 * with no language by name or by `#!` line), remembered with the size and
 * mtime they had: a later run in the same process (a sync on a parked job
 * worker, as the live index runs them) does not read them again while their
 * stat is the same, as it does not read an indexed file whose stat is the
 * same. A tree like the kernel's has thousands (`Makefile`, `Kbuild`).
 * Needs no Deno permission.
 */
import type { ScannedFile } from "./scan.ts";

/** Why a file was read and left out. */
export type SkipVerdict = "binary" | "no_language";

/** Most verdicts kept; past it they are forgotten whole (the next run reads those files again). */
const MAX_VERDICTS = 200_000;

const verdicts = new Map<string, { stat: string; verdict: SkipVerdict }>();

function keyOf(root: string, path: string): string {
  return `${root}\0${path}`;
}

function statOf(f: ScannedFile): string {
  return `${f.size}:${f.mtimeMs}`;
}

/** The verdict kept for file `f` of `root`, or null when there is none for its present size and mtime. */
export function keptSkipVerdict(root: string, f: ScannedFile): SkipVerdict | null {
  const v = verdicts.get(keyOf(root, f.path));
  return v && v.stat === statOf(f) ? v.verdict : null;
}

/** Remembers that file `f` of `root`, with its present size and mtime, was read and left out. */
export function keepSkipVerdict(root: string, f: ScannedFile, verdict: SkipVerdict): void {
  if (verdicts.size >= MAX_VERDICTS) verdicts.clear();
  verdicts.set(keyOf(root, f.path), { stat: statOf(f), verdict });
}
