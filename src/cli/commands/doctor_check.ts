/** What every `cruxe doctor` check reports (its own file so the check modules and the command share it). */

/** One doctor finding. */
export interface Check {
  check: string;
  status: "ok" | "warn" | "fail";
  detail: string;
  fix?: string;
}
