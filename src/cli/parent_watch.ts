/**
 * The parent-death check of a serving process: a launcher killed without a
 * chance to forward a signal (SIGKILL, a task runner that does not relay
 * SIGTERM) leaves its child re-parented, and nothing else tells the child.
 * Polling `Deno.ppid` notices it. Needs no permission.
 */

/** How often the parent is checked. */
const PARENT_POLL_MS = 500;

/**
 * Calls `onGone` once when this process's parent has exited (this process
 * was re-parented: `Deno.ppid` changed). The check never keeps the process
 * alive. Does nothing on Windows, or when the parent already is init (a
 * daemon). Returns a function that stops the check.
 */
export function watchParent(onGone: () => void, everyMs = PARENT_POLL_MS): () => void {
  if (Deno.build.os === "windows") return () => {};
  const parent = Deno.ppid;
  if (parent <= 1) return () => {};
  const timer = setInterval(() => {
    if (Deno.ppid === parent) return;
    clearInterval(timer);
    onGone();
  }, everyMs);
  Deno.unrefTimer(timer);
  return () => clearInterval(timer);
}
