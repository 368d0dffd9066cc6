/** `cruxe status`: every project with its index state and last job; `--errors` lists files with syntax errors. */
import type { CliContext } from "../context.ts";
import { counted, printJson, printTable, say } from "../output.ts";
import { IndexReaders, schemaFix } from "../../query/index_reader.ts";
import { projectStatus } from "../../query/index_status.ts";
import { type FileProblem, filesWithParseProblems } from "../../state/read/files.ts";

/** Options of `cruxe status`. */
export interface StatusOptions {
  json: boolean;
  /** List files whose parse reported a problem, per project. */
  errors: boolean;
}

/** Most files listed per project; the true total is always reported. */
const MAX_LISTED = 1000;

/** Prints the status of every project; returns the exit code. */
export function runStatus(ctx: CliContext, o: StatusOptions): number {
  const readers = new IndexReaders(ctx.registry);
  try {
    const projects = ctx.registry.listProjects().map((p) => {
      const status = projectStatus(ctx.registry, readers, p, undefined);
      if (!o.errors) return { status, problems: null };
      const view = readers.view(p);
      const ok = view.db && view.schemaStatus === "compatible";
      return { status, problems: ok ? filesWithParseProblems(view.db!, MAX_LISTED) : { files: [], total: 0 } };
    });
    if (o.json) {
      printJson({
        home: ctx.config.home,
        projects: projects.map(({ status, problems }) =>
          problems ? { ...status, files_with_errors: problems.files, files_with_errors_total: problems.total } : status
        ),
      });
      return 0;
    }
    if (!projects.length) {
      say("No projects yet. Run `cruxe init` or `cruxe index` in a repository.");
      return 0;
    }
    printTable(
      ["name", "root", "status", "ref", "files", "symbols", "last indexed", "last job"],
      projects.map(({ status: p }) => [
        p.name,
        p.repo_root,
        p.schema_status === "compatible" ? p.index_status : p.schema_status,
        p.ref,
        p.file_count,
        p.symbol_count,
        p.last_indexed_at,
        p.recent_jobs[0] ? `${p.recent_jobs[0].status} (${p.recent_jobs[0].mode})` : "",
      ]),
    );
    if (ctx.registry.readOnly) {
      say(
        `! ${ctx.config.home} cannot be written (${ctx.registry.readOnly}): queries answer from the existing ` +
          "indexes; indexing and syncing are off. Make it writable or set CRUXE_HOME.",
      );
    }
    for (const { status: p, problems } of projects) {
      saySchemaFix(p);
      const unreadable = ("skipped" in p ? p.skipped?.unreadable : 0) ?? 0;
      if (unreadable) {
        say(
          `! ${p.name}: ${counted(unreadable, "path")} could not be read (skipped by ` +
            `the last full scan); \`cruxe doctor\` names them`,
        );
      }
      if (p.interrupted_recovery_report) {
        say(
          `! ${p.name}: ${p.interrupted_recovery_report.interrupted_jobs} interrupted job(s); run \`cruxe sync --workspace ${p.repo_root}\``,
        );
      }
      if (problems) printProblems(p.name, problems);
      else {
        const n = p.recent_jobs[0]?.parse_errors ?? 0;
        if (n) {
          say(
            `${p.name}: ${
              counted(n, "file")
            } had syntax errors in the last job; list them with \`cruxe status --errors\``,
          );
        }
      }
    }
    return 0;
  } finally {
    readers.closeAll();
  }
}

/** The line naming how to fix a project's index when its schema state keeps it from answering (none when it can). */
function saySchemaFix(p: ReturnType<typeof projectStatus>): void {
  const fix = schemaFix({
    schemaStatus: p.schema_status,
    currentSchemaVersion: p.current_schema_version,
    requiredSchemaVersion: p.required_schema_version,
  }, p.repo_root);
  if (fix?.startsWith("cruxe sync")) {
    // An older build's store: a sync upgrades it in place (what every query's error says too).
    say(
      `! ${p.name}: the index was written by an older Cruxe (schema ${p.current_schema_version}, this build ` +
        `needs ${p.required_schema_version}); run \`${fix}\`: it upgrades it in place`,
    );
  } else if (fix) {
    say(`! ${p.name}: the index is ${p.schema_status}${"problem" in p ? ` (${p.problem})` : ""}; run \`${fix}\``);
  }
}

function printProblems(name: string, { files, total }: { files: FileProblem[]; total: number }): void {
  say("");
  if (!total) {
    say(`${name}: no files with syntax errors.`);
    return;
  }
  say(
    `${name}: ${counted(total, "file")} with syntax errors (indexed as far as the parser recovered):`,
  );
  for (const f of files) say(`  ${f.path}: ${f.problem} (${f.language})`);
  if (total > files.length) say(`  … and ${total - files.length} more`);
}
