/**
 * Records the answer of every query tool over every fixture repository, so a
 * refactoring can show its answers are unchanged: `record OUT.json` writes
 * them, `compare OUT.json` runs the same calls again and prints how many
 * answers are identical. The calls are derived from the fixtures themselves
 * (each file's outline gives the symbols asked about) and run in process
 * through the one dispatch pipeline; fields that change from run to run
 * (times, durations, job ids, the temporary home) are blanked first.
 *
 * Usage: deno run -A scripts/answer_snapshot.ts record|compare FILE.json
 * Requires read/write on the fixtures and a temporary home, `--allow-run=git`.
 */
import { join, relative } from "node:path";
import { resolveConfig } from "../src/core/config.ts";
import { Registry } from "../src/state/registry.ts";
import { toolNamed } from "../src/service/tools/registry.ts";
import { registerProject } from "../src/index/project_setup.ts";
import { ServerRuntime } from "../src/service/runtime.ts";
import { Dispatcher } from "../src/service/dispatch.ts";

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
/** The fixture repositories the snapshot calls on. */
export const REPOS = join(ROOT, "fixtures/repos");
/** Symbols asked about per repository (the first ones its outlines list). */
const SYMBOLS_PER_REPO = 12;
/** Keys whose values differ between runs of the same index. */
const VOLATILE_KEY = /(_at|_ms|Ms|_seconds|^elapsed|^duration|^job_id|^progress_token|^uptime.*|^pid|^generation)$/;

/** One recorded call: its label and the scrubbed answer. */
export interface Answer {
  call: string;
  answer: unknown;
}

/** `v` with `home` replaced by `<home>` in every string and the fields that differ between runs blanked. */
export function scrub(v: unknown, home: string): unknown {
  if (typeof v === "string") return v.split(home).join("<home>");
  if (Array.isArray(v)) return v.map((x) => scrub(x, home));
  if (v && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = VOLATILE_KEY.test(k) ? "<volatile>" : scrub(x, home);
    return out;
  }
  return v;
}

function filesOf(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of [...Deno.readDirSync(d)].sort((a, b) => a.name.localeCompare(b.name))) {
      if (e.name.startsWith(".")) continue;
      const p = join(d, e.name);
      if (e.isDirectory) walk(p);
      else if (e.isFile) out.push(relative(dir, p));
    }
  };
  walk(dir);
  return out;
}

/** The runtime and dispatcher the snapshot calls through (one index worker, no prewarm, no reader workers). */
export function snapshotRuntime(home: string): { registry: Registry; rt: ServerRuntime; dispatcher: Dispatcher } {
  const config = { ...resolveConfig({ CRUXE_HOME: home }, Deno.build.os), workers: 1 };
  const registry = Registry.open(home);
  const rt = new ServerRuntime(config, registry, {
    prewarm: false,
    freshnessIntervalMs: 0,
    readerWorkers: 0,
    router: { startupWorkspaces: [], autoWorkspace: false, allowedRoots: [], maxAutoWorkspaces: 10, cwd: ROOT },
  });
  return { registry, rt, dispatcher: new Dispatcher(rt) };
}

/** Makes a tool call and resolves to the answer's body (the caller records it). */
export type SnapshotCall = (tool: string, args: Record<string, unknown>) => Promise<Record<string, unknown>>;

/**
 * The calls made on one indexed repository at `workspace`, in a fixed
 * order: every file's outline and first lines, then, for the first symbols
 * its outlines list, definitions, hierarchy, related symbols, references and
 * call graphs, then searches, contexts, follow-ups and ranking explanations.
 */
export async function repoCalls(workspace: string, call: SnapshotCall): Promise<void> {
  const symbols: { name: string; path: string }[] = [];
  for (const path of filesOf(workspace)) {
    const outline = await call("get_file_outline", { workspace, path });
    await call("open_file", { workspace, path, startLine: 1, endLine: 30 });
    const walk = (list: unknown) => {
      for (const s of (Array.isArray(list) ? list : []) as Record<string, unknown>[]) {
        if (typeof s.name === "string") symbols.push({ name: s.name, path });
        walk(s.children);
      }
    };
    walk(outline.symbols);
  }
  for (const s of symbols.slice(0, SYMBOLS_PER_REPO)) {
    await call("locate_symbol", { workspace, name: s.name });
    await call("get_symbol_hierarchy", { workspace, symbol_name: s.name, path: s.path });
    await call("get_symbol_hierarchy", { workspace, symbol_name: s.name, direction: "descendants" });
    await call("find_related_symbols", { workspace, symbol_name: s.name });
    await call("find_references", { workspace, symbol_name: s.name, include_definition: true });
    await call("get_call_graph", { workspace, symbol_name: s.name, direction: "both", depth: 2 });
  }
  const queries = [
    ...symbols.slice(0, 4).map((s) => s.name),
    "how are tokens validated",
    "error handling",
    "config",
    "where is the main entry point",
    'error: "token expired"',
  ];
  for (const query of queries) {
    const search = await call("search_code", { workspace, query, ranking_explain_level: "basic" });
    await call("search_code", { workspace, query, limit: 3, path_prefix: symbols[0]?.path.split("/")[0] ?? "" });
    await call("get_code_context", { workspace, query, max_tokens: 800 });
    await call("get_code_context", { workspace, query, max_tokens: 800, strategy: "breadth" });
    await call("ask_code", { workspace, query, grounded: true });
    await call("suggest_followup_queries", { workspace, query });
    const first = (search.results as Record<string, unknown>[] | undefined)?.[0];
    if (first?.result_id) {
      await call("explain_ranking", { workspace, query, result_id: first.result_id });
    }
  }
}

/**
 * Indexes the fixture repositories (`only`: these names; default all) and
 * makes every recorded call on them, in order (with `verbose`, every
 * answer that has a compact form in full; the label shows the call's own
 * arguments); resolves to the scrubbed answers.
 */
export async function answers(only?: readonly string[], verbose = false): Promise<Answer[]> {
  const home = Deno.makeTempDirSync({ prefix: "cruxe-answer-snapshot-" });
  const { registry, rt, dispatcher } = snapshotRuntime(home);
  const out: Answer[] = [];
  const call = async (tool: string, args: Record<string, unknown>): Promise<Record<string, unknown>> => {
    const full = verbose && toolNamed(tool)?.compact ? { ...args, verbose: true } : args;
    const r = await dispatcher.call(tool, full, {
      sendNotification: () => Promise.resolve(),
      signal: new AbortController().signal,
    });
    const body = JSON.parse(r.content[0].text);
    const label = `${tool} ${JSON.stringify({ ...args, workspace: relative(ROOT, String(args.workspace)) })}`;
    out.push({ call: label, answer: scrub({ isError: r.isError ?? false, body }, home) });
    return body;
  };
  try {
    const repos = [...Deno.readDirSync(REPOS)].filter((e) => e.isDirectory && (!only || only.includes(e.name)))
      .map((e) => e.name).sort();
    for (const name of repos) registerProject(registry, join(REPOS, name));
    for (const name of repos) {
      const workspace = join(REPOS, name);
      await call("index_repo", { workspace, wait: true });
      await repoCalls(workspace, call);
      await call("index_status", { workspace });
    }
    const multi = join(REPOS, "multi_alpha");
    for (const query of only ? [] : ["validate token", "config", "rate limit"]) {
      await call("search_code", {
        workspace: multi,
        query,
        scope: { type: "repos", repos: ["multi_alpha", "multi_beta", "multi_gamma"] },
      });
      await call("ask_code", { workspace: multi, query, repo: "multi_beta", grounded: true });
    }
  } finally {
    rt.close();
    registry.close();
    Deno.removeSync(home, { recursive: true });
  }
  return out;
}

if (import.meta.main) {
  const [mode, file] = Deno.args;
  if ((mode !== "record" && mode !== "compare") || !file) {
    console.error("usage: answer_snapshot.ts record|compare FILE.json");
    Deno.exit(2);
  }
  const now = await answers();
  if (mode === "record") {
    Deno.writeTextFileSync(file, JSON.stringify(now, null, 1));
    console.log(`recorded ${now.length} answers in ${file}`);
  } else {
    const before: Answer[] = JSON.parse(Deno.readTextFileSync(file));
    let same = 0;
    now.forEach((a, i) => {
      const b = before[i];
      if (b?.call === a.call && JSON.stringify(b.answer) === JSON.stringify(a.answer)) same++;
      else console.log(`differs: #${i} ${a.call}`);
    });
    const gone = Math.max(0, before.length - now.length);
    console.log(`identical answers: ${same} / ${now.length} (calls recorded before but not made now: ${gone})`);
    if (same !== now.length || gone) Deno.exit(1);
  }
}
