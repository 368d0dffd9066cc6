/**
 * `cruxe watch [--workspace PATH]`: keeps one workspace's index live from a
 * terminal, the way a server does (events, else polling; the same ignore
 * rules and debounce), and prints one line per sync: files changed, symbols,
 * milliseconds. Indexes the workspace first when it has no index. With
 * `--json`, one JSON object per line. Runs until Ctrl-C (SIGINT/SIGTERM).
 * Requires `--allow-read` on the workspace, `--allow-read`/`--allow-write` on
 * the Cruxe home, `--allow-run=git`.
 */
import type { CliContext } from "../context.ts";
import { projectForPath } from "../project_arg.ts";
import { ServerRuntime } from "../../service/runtime.ts";
import type { JobEvent } from "../../state/jobs.ts";
import { say } from "../output.ts";

/** Options of `cruxe watch`. */
export interface WatchCmdOptions {
  path: string;
  json: boolean;
}

function clock(): string {
  return new Date().toTimeString().slice(0, 8);
}

/** One sync as a line (human or JSON). */
function syncLine(e: Extract<JobEvent, { type: "end" }>, json: boolean): string {
  const s = e.summary;
  if (json) {
    return JSON.stringify({
      event: "sync",
      job_id: e.job.job_id,
      mode: e.job.mode,
      status: e.job.status,
      ref: e.job.ref,
      changed_files: s?.changedFiles ?? e.job.changed_files,
      added: s?.added ?? null,
      modified: s?.modified ?? null,
      deleted: s?.deleted ?? null,
      renamed: s?.renamed ?? null,
      symbols: s?.symbols ?? null,
      total_files: s?.totalFiles ?? null,
      total_symbols: s?.totalSymbols ?? null,
      duration_ms: s?.durationMs ?? e.job.duration_ms,
      scope: s?.scope ?? null,
      ...(e.error ? { error: e.error } : {}),
    });
  }
  if (!s || e.job.status !== "published") return `${clock()} ${e.job.mode} sync ${e.job.status}: ${e.error ?? ""}`;
  return `${clock()} ${s.mode === "full" ? "indexed" : "synced"} ${s.changedFiles} file(s) ` +
    `(+${s.added} ~${s.modified} -${s.deleted} renamed ${s.renamed}), ${s.symbols} symbol(s) in ${s.durationMs} ms ` +
    `(${s.scope === "paths" ? "changed paths only" : "tree scanned"}); ` +
    `index: ${s.totalFiles} files, ${s.totalSymbols} symbols (${e.job.ref})`;
}

/** Watches until a stop signal; resolves to the exit code. */
export async function runWatchCommand(ctx: CliContext, o: WatchCmdOptions): Promise<number> {
  const project = projectForPath(ctx.registry, o.path, true);
  const rt = new ServerRuntime(ctx.config, ctx.registry, {
    prewarm: false,
    watch: true,
    // No call is ever answered here: nothing to keep the walk out of the way of.
    live: { walkDeferMs: 0 },
    router: {
      startupWorkspaces: [project.repo_root],
      autoWorkspace: false,
      allowedRoots: [],
      maxAutoWorkspaces: ctx.config.maxAutoWorkspaces,
      cwd: Deno.cwd(),
    },
  });
  let stop!: () => void;
  const stopped = new Promise<void>((r) => stop = r);
  const signals: Deno.Signal[] = Deno.build.os === "windows" ? ["SIGINT"] : ["SIGINT", "SIGTERM"];
  for (const s of signals) Deno.addSignalListener(s, stop);
  const off = rt.runner.subscribe((e) => {
    if (e.type === "end" && !e.gitRef && e.project.project_id === project.project_id) {
      (o.json ? console.log : say)(syncLine(e, o.json));
    }
  });
  try {
    if (rt.readers.view(project).schemaStatus !== "compatible") {
      const { active } = rt.runner.start(project, { mode: "full", force: false });
      if (!o.json) say(`${clock()} indexing ${project.repo_root} first…`);
      await Promise.race([active.done, stopped]);
    }
    rt.live.begin([project], []);
    const st = rt.live.status(project);
    if (o.json) {
      console.log(
        JSON.stringify({ event: "watching", repo_root: project.repo_root, mode: st.mode, reason: st.reason }),
      );
    } else {
      say(
        `${clock()} watching ${project.repo_root} (${st.mode}${st.reason ? `: ${st.reason}` : ""}); Ctrl-C stops.`,
      );
      if (st.fix) say(`fix: ${st.fix}`);
    }
    await stopped;
  } finally {
    for (const s of signals) Deno.removeSignalListener(s, stop);
    off();
    rt.close();
  }
  return 0;
}
