/**
 * Temporary directories for tests that are removed when the test module
 * ends (its `unload`), so repeated runs do not fill the temporary directory
 * with homes, indexes and copied repositories. Removal is best effort: a
 * directory a test left unreadable stays.
 */

const made: string[] = [];

globalThis.addEventListener("unload", () => {
  for (const dir of made.splice(0)) {
    try {
      Deno.removeSync(dir, { recursive: true });
    } catch { /* already gone, or left unreadable by its test */ }
  }
});

/** A new empty directory under the system's temporary directory, removed when this test module ends. */
export function tempDir(prefix: string): string {
  const dir = Deno.makeTempDirSync({ prefix });
  made.push(dir);
  return dir;
}
