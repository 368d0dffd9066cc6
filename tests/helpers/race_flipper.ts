/**
 * A Deno Worker that swaps one entry of a repository back and forth between
 * its real form and a symlink leaving the repository, as fast as it can,
 * until told to stop (or until its own deadline: it always stops by itself).
 * Used by the open race test; needs read/write on the repository.
 *
 * Message in: `{ entry, stop, maxMs }` — `entry` is the absolute path that
 * flips; `<entry>.real` and `<entry>.link` must exist beside it as the two
 * forms (one of them is at `entry` at any moment, or briefly neither).
 * Messages out: `{ started: true }` before the first flip; `{ flips }` once
 * stopped, with the real form back in place.
 */
/// <reference lib="deno.worker" />

self.onmessage = (e: MessageEvent<{ entry: string; stop: SharedArrayBuffer; maxMs: number }>) => {
  const { entry, maxMs } = e.data;
  const stop = new Int32Array(e.data.stop);
  const end = Date.now() + maxMs;
  let flips = 0;
  // Each form is held for a varying 0-120 µs (busy wait, no timer), so swaps land at every
  // point of a reader's checks rather than in lockstep with them.
  const hold = () => {
    const until = performance.now() + ((flips * 37) % 121) / 1000;
    while (performance.now() < until) { /* spin */ }
  };
  self.postMessage({ started: true });
  // The real form starts at `entry`; `.link` is parked beside it.
  while (Atomics.load(stop, 0) === 0 && Date.now() < end) {
    hold();
    Deno.renameSync(entry, entry + ".real");
    Deno.renameSync(entry + ".link", entry);
    flips++;
    hold();
    Deno.renameSync(entry, entry + ".link");
    Deno.renameSync(entry + ".real", entry);
    flips++;
  }
  self.postMessage({ flips });
};
