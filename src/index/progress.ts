/** Progress events of an index job, and how they map to the stages a client sees. */
import type { ProgressEvent, Stage } from "../state/jobs.ts";

/** Percentage inside a stage's band (Discovery 0–10, Parsing 10–70, Indexing 70–95, Finalizing 95–99). */
export function stagePercent(stage: Stage, done: number, total: number): number {
  const frac = total > 0 ? Math.min(1, done / total) : 1;
  switch (stage) {
    case "discovery":
      return Math.round(10 * frac);
    case "parsing":
      return 10 + Math.floor(60 * frac);
    case "indexing":
      return 70 + Math.floor(25 * frac);
    case "finalizing":
      return 95 + Math.floor(4 * frac);
    case "done":
      return 100;
    default:
      return 0;
  }
}

/** The human message a client shows for a stage. */
export function stageMessage(stage: Stage, e: Omit<ProgressEvent, "message" | "stage" | "percentage">): string {
  switch (stage) {
    case "discovery":
      return `Scanning files: ${e.filesScanned} discovered`;
    case "parsing": {
      const pct = e.filesTotal ? Math.floor(100 * e.filesIndexed / e.filesTotal) : 100;
      return `Parsing files: ${e.filesIndexed}/${e.filesTotal} (${pct}%)`;
    }
    case "indexing":
      return `Indexing: ${e.filesIndexed}/${e.filesTotal} files, ${e.symbols} symbols`;
    case "finalizing":
      return "Finalizing index...";
    default:
      return "";
  }
}
