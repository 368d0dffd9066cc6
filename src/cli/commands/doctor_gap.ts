/**
 * Why the number of files a scan would index differs from the number in the
 * index: files with no supported language, binaries, and changes since the
 * last index. Requires `--allow-read` on the repository and the store.
 */
import { extname } from "node:path";
import type { Check } from "./doctor_check.ts";
import { counted } from "../output.ts";
import type { CruxeConfig } from "../../core/config.ts";
import type { Registry } from "../../state/registry.ts";
import { scanRepository } from "../../index/scan.ts";
import { readVerdict } from "../../index/unindexed_reason.ts";
import { IndexReaders } from "../../query/index_reader.ts";
import { allIndexedPaths } from "../../state/read/files.ts";
import { canonicalDir } from "../../io/workspace_dir.ts";

/** Why a scanned file is not in the index. */
type Reason = "no_language" | "binary" | "unreadable" | "new_since_index";

function classify(root: string, path: string, maxBytes: number): Reason {
  const verdict = readVerdict(root, path, maxBytes);
  return verdict === "indexable" ? "new_since_index" : verdict;
}

/**
 * A doctor check comparing the files a scan of `root` finds with the files in
 * its index, the difference explained by reason; null when `root` is not an
 * indexed project.
 */
export async function indexGapCheck(
  ctx: { config: CruxeConfig; registry: Registry },
  root: string,
): Promise<Check | null> {
  let project;
  try {
    project = ctx.registry.projectContaining(canonicalDir(root));
  } catch {
    return null; // the directory is gone or unreadable: the ignore-rules check reports it
  }
  if (!project) return null;
  const readers = new IndexReaders(ctx.registry);
  try {
    const view = readers.view(project);
    if (!view.db || view.schemaStatus !== "compatible") return null;
    const indexed = new Set(allIndexedPaths(view.db));
    const scan = await scanRepository(project.repo_root, { maxFileBytes: ctx.config.maxFileBytes });
    const counts: Record<Reason | "deleted_since_index", number> = {
      no_language: 0,
      binary: 0,
      unreadable: 0,
      new_since_index: 0,
      deleted_since_index: 0,
    };
    const extensions = new Map<string, number>();
    const scanned = new Set<string>();
    for (const f of scan.files) {
      scanned.add(f.path);
      if (indexed.has(f.path)) continue;
      const why = classify(project.repo_root, f.path, ctx.config.maxFileBytes);
      counts[why]++;
      if (why === "no_language") {
        const ext = extname(f.path) || f.path.split("/").pop()!;
        extensions.set(ext, (extensions.get(ext) ?? 0) + 1);
      }
    }
    for (const p of indexed) if (!scanned.has(p)) counts.deleted_since_index++;
    const top = [...extensions].sort((a, b) => b[1] - a[1]).slice(0, 4).map(([e, n]) => `${e} ${n}`).join(", ");
    const notIndexed = [
      counts.no_language && `${counts.no_language} with no supported language (${top})`,
      counts.binary && `${counts.binary} binary`,
      counts.unreadable && `${counts.unreadable} unreadable`,
      counts.new_since_index && `${counts.new_since_index} new since the last index`,
    ].filter(Boolean);
    const gone = counts.deleted_since_index
      ? `; ${counts.deleted_since_index} in the index are gone from the tree`
      : "";
    const stale = counts.new_since_index > 0 || counts.deleted_since_index > 0;
    return {
      check: `files ${project.name}`,
      status: stale ? "warn" : "ok",
      detail: `${counted(scan.files.length, "file")} to index, ${indexed.size} in the index` +
        (notIndexed.length ? `; not indexed: ${notIndexed.join(", ")}` : "") + gone,
      fix: stale ? `cruxe sync --workspace ${project.repo_root}` : undefined,
    };
  } finally {
    readers.closeAll();
  }
}
