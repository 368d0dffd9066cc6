/**
 * Test helpers for multi-repo scope, open_file and ask_code: the three
 * `fixtures/repos/multi_*` repositories indexed under names, and a small
 * term-overlap search whose score is comparable across repositories (the
 * fraction of query terms a chunk contains), standing in for searchCode.
 */
import type { Db } from "../../src/state/db.ts";
import { withChunkText } from "../../src/state/read/chunk_text.ts";
import type { SearchHit, SearchInput } from "../../src/query/multi_repo.ts";
import { copyFixture, indexDir, tempHome, type TestHome } from "./fixture_repo.ts";
import type { ProjectRow } from "../../src/state/registry.ts";

/** Scores every chunk by the share of query terms it contains (0..1). */
export function termSearch(db: Db, input: SearchInput): { results: SearchHit[]; total_candidates: number } {
  const terms = input.query.toLowerCase().split(/[^a-z0-9_]+/).filter((t) => t.length > 1);
  const stored = db.prepare("SELECT path, line_start, line_end, language, content FROM chunks").all() as unknown as {
    path: string;
    line_start: number;
    line_end: number;
    language: string;
    content: string | null;
  }[];
  const rows = withChunkText(db, stored);
  const hits: SearchHit[] = [];
  for (const r of rows) {
    if (input.pathPrefix && !r.path.startsWith(input.pathPrefix)) continue;
    if (input.language && r.language !== input.language) continue;
    const body = r.content.toLowerCase();
    const n = terms.filter((t) => body.includes(t)).length;
    if (!n) continue;
    hits.push({
      path: r.path,
      line_start: r.line_start,
      line_end: r.line_end,
      score: Math.round((n / terms.length) * 1000) / 1000,
      snippet: r.content.slice(0, 80),
    });
  }
  hits.sort((a, b) => b.score - a.score || a.path.localeCompare(b.path) || a.line_start - b.line_start);
  return { results: hits.slice(0, input.limit), total_candidates: hits.length };
}

/** A home with multi_alpha, multi_beta and multi_gamma indexed as "alpha", "beta", "gamma". */
export interface ScopeHome extends TestHome {
  projects: Record<"alpha" | "beta" | "gamma", ProjectRow>;
  dirs: Record<"alpha" | "beta" | "gamma", string>;
}

/** Copies and indexes the three fixture repositories and names them. */
export async function scopeHome(): Promise<ScopeHome> {
  const h = tempHome();
  const dirs = {
    alpha: copyFixture("multi_alpha"),
    beta: copyFixture("multi_beta"),
    gamma: copyFixture("multi_gamma"),
  };
  const projects = {} as ScopeHome["projects"];
  for (const name of ["alpha", "beta", "gamma"] as const) {
    const { project, status } = await indexDir(h, dirs[name]);
    if (status !== "published") throw new Error(`indexing ${name} ended ${status}`);
    projects[name] = h.registry.upsertProject({ ...project, name });
  }
  const close = h.close;
  return {
    ...h,
    projects,
    dirs,
    close() {
      close();
      for (const d of Object.values(dirs)) Deno.removeSync(d, { recursive: true });
      Deno.removeSync(h.home, { recursive: true });
    },
  };
}
