/**
 * Running a command as the same user without the capabilities that let root
 * ignore file modes, so a test of an unreadable file or a read-only directory
 * also holds when the suite runs as root.
 */

/** `setpriv` arguments dropping CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH, before the command. */
export const NO_DAC = ["--bounding-set=-dac_override,-dac_read_search", "--"];

/** Why file modes cannot be made to bind here (root without a working `setpriv`), or null when they can. */
export function fileModesUnavailable(): string | null {
  if (Deno.build.os === "windows") return "file modes do not make a file unreadable on Windows";
  if (Deno.uid() !== 0) return null;
  try {
    const ok = new Deno.Command("setpriv", { args: [...NO_DAC, "true"], stdout: "null", stderr: "null" })
      .outputSync().success;
    return ok ? null : "running as root and setpriv cannot drop CAP_DAC_OVERRIDE here";
  } catch {
    return "running as root and setpriv is not installed (root ignores file modes)";
  }
}

/** `argv` run so that file modes bind: under `setpriv` without the DAC capabilities when root, else as is. */
export function withFileModes(argv: string[]): string[] {
  return Deno.uid() === 0 ? ["setpriv", ...NO_DAC, ...argv] : argv;
}
