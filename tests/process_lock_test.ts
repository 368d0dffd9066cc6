/**
 * The liveness lock (`src/io/process_lock.ts`) in a process that runs jobs in
 * two Cruxe homes, as a team worker's scratch home beside the user's: taking
 * the lock in home A, then B, then A again returns at once (the process never
 * waits on its own lock), and another process sees it alive in both homes.
 * Run in a child process with a deadline, so a process that would wait on
 * itself fails the test instead of hanging the suite.
 */
import assert from "node:assert/strict";
import { join } from "node:path";

const MODULE = new URL("../src/io/process_lock.ts", import.meta.url).href;

Deno.test("a process holding liveness locks in two homes takes each again without waiting on itself", async () => {
  const a = Deno.makeTempDirSync({ prefix: "cruxe-lock-a-" });
  const b = Deno.makeTempDirSync({ prefix: "cruxe-lock-b-" });
  try {
    const script = `import { holdProcessLock } from ${JSON.stringify(MODULE)};
      holdProcessLock(${JSON.stringify(a)}); holdProcessLock(${JSON.stringify(b)}); holdProcessLock(${
      JSON.stringify(a)
    });
      console.log(Deno.pid); await new Promise((r) => setTimeout(r, 60_000));`;
    const child = new Deno.Command(Deno.execPath(), {
      args: ["eval", script],
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    const deadline = setTimeout(() => child.kill("SIGKILL"), 20_000);
    try {
      const { value } = await reader.read();
      const pid = Number(value?.trim());
      assert.ok(pid > 0, `the child printed its pid after taking the locks (got ${JSON.stringify(value)})`);
      const { processAlive } = await import(MODULE);
      assert.equal(processAlive(a, pid), true);
      assert.equal(processAlive(b, pid), true);
      assert.ok(Deno.statSync(join(a, "run", `${pid}.lock`)).isFile);
    } finally {
      clearTimeout(deadline);
      child.kill("SIGKILL");
      await reader.cancel();
      await child.status;
      await child.stderr.cancel();
    }
  } finally {
    Deno.removeSync(a, { recursive: true });
    Deno.removeSync(b, { recursive: true });
  }
});
