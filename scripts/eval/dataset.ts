/**
 * Labelled query sets in the semble format: a folder with `repos.json`
 * (name → language, url or path, revision, benchmark_root) and
 * `annotations/NAME.json` (queries with relevant/secondary targets and a
 * category). Also reads the published score table of the folder's README
 * when there is one. Needs read access to the folder.
 */
import { join } from "node:path";
import { existsSync } from "node:fs";
import type { Target } from "./metrics.ts";

/** One repository of a dataset. */
export interface RepoEntry {
  name: string;
  language: string;
  url?: string;
  /** Where the tree is when it is not under the repos root (Data 2 corpora). */
  path?: string;
  revision?: string;
  version?: string;
  benchmark_root?: string;
}

/** One labelled query. */
export interface LabelledQuery {
  query: string;
  relevant: Target[];
  secondary: Target[];
  category: string;
}

/** Published NDCG@10 columns for a repository. */
export interface Published {
  raw_bm25?: number;
  semble_lexical?: number;
  semble_hybrid?: number;
}

/** Reads `repos.json` and every annotation file that has a repository entry. */
export function readDataset(folder: string): { repos: RepoEntry[]; queries: Map<string, LabelledQuery[]> } {
  const reposJson = JSON.parse(Deno.readTextFileSync(join(folder, "repos.json"))) as Record<string, RepoEntry>;
  const repos: RepoEntry[] = [];
  const queries = new Map<string, LabelledQuery[]>();
  for (const [name, e] of Object.entries(reposJson)) {
    const file = join(folder, "annotations", `${name}.json`);
    if (!existsSync(file)) continue;
    repos.push({ ...e, name });
    const qs = JSON.parse(Deno.readTextFileSync(file)) as LabelledQuery[];
    queries.set(name, qs.map((q) => ({ ...q, secondary: q.secondary ?? [], category: q.category ?? "uncategorized" })));
  }
  return { repos, queries };
}

/** The README's published table (`| repo | language | revision | root | raw | lexical | hybrid |`), if any. */
export function readPublished(folder: string): Map<string, Published> {
  const out = new Map<string, Published>();
  const p = join(folder, "README.md");
  if (!existsSync(p)) return out;
  for (const line of Deno.readTextFileSync(p).split("\n")) {
    const cells = line.split("|").map((c) => c.trim());
    if (cells.length < 9) continue;
    const [raw, lex, hyb] = cells.slice(5, 8).map(Number);
    if (![raw, lex, hyb].every(Number.isFinite) || !cells[1] || cells[1].startsWith("**")) continue;
    out.set(cells[1], { raw_bm25: raw, semble_lexical: lex, semble_hybrid: hyb });
  }
  return out;
}
