/**
 * A served process never outlives the process that started it: killing the
 * sandbox launcher (no signal to forward) stops the sandboxed server, and
 * killing the launcher's own parent stops the launcher and its server, so
 * the port is free again.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { CRUXE_FLAGS, REPO_ROOT, tempHomeDir, within } from "./mcp_helpers.ts";

/** Every live (not zombie) process as pid → parent pid (`ps`: reading `/proc` needs --allow-all). */
function processTable(): Map<number, number> {
  const out = new TextDecoder().decode(
    new Deno.Command("ps", { args: ["-eo", "pid=,ppid=,stat="] }).outputSync().stdout,
  );
  const table = new Map<number, number>();
  for (const line of out.split("\n")) {
    const [pid, ppid, stat] = line.trim().split(/\s+/);
    if (pid && !stat?.startsWith("Z")) table.set(Number(pid), Number(ppid));
  }
  return table;
}

/** `pid` and all its live descendants. */
function treeOf(pid: number, table = processTable()): number[] {
  const kids = [...table].filter(([, parent]) => parent === pid).map(([p]) => p);
  return [pid, ...kids.flatMap((k) => treeOf(k, table))];
}

function alive(pid: number): boolean {
  return processTable().has(pid);
}

async function portRefuses(port: number): Promise<boolean> {
  try {
    const c = await Deno.connect({ hostname: "127.0.0.1", port });
    c.close();
    return false;
  } catch {
    return true;
  }
}

/**
 * Starts `command args` (whose tree ends in an HTTP `serve-mcp`), reads stderr
 * until the port is announced, kills the process `victim(pid)` picks with
 * SIGKILL, and requires stderr to close (every process holding it exited) and
 * the port to refuse connections.
 */
async function killAndExpectExit(
  command: string,
  args: (repo: string) => string[],
  victim: (tree: number[]) => number,
): Promise<void> {
  const home = tempHomeDir();
  const repo = Deno.makeTempDirSync({ prefix: "cruxe-parent-exit-" });
  Deno.writeTextFileSync(join(repo, "a.py"), "def a():\n    return 1\n");
  const child = new Deno.Command(command, {
    args: args(repo),
    env: { CRUXE_HOME: home, CRUXE_WORKERS: "1", NO_COLOR: "1" },
    cwd: REPO_ROOT,
    stdin: "piped",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let tree: number[] = [];
  const reader = child.stderr.getReader();
  let err = "";
  try {
    let port = 0;
    const dec = new TextDecoder();
    const readPort = async () => {
      while (!port) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`server did not start: ${err}`);
        err += dec.decode(value);
        port = Number(err.match(/MCP over HTTP on http:\/\/[^\s]+:(\d+)\//)?.[1] ?? 0);
      }
    };
    await within(readPort(), 60_000, "the port announcement");
    tree = treeOf(child.pid);
    assert.ok(tree.length >= 2, `the sandboxed child expected under ${child.pid}: ${tree}`);
    Deno.kill(victim(tree), "SIGKILL");
    // stderr closes only once every process that inherited it has exited.
    const closed = (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        err += dec.decode(value);
      }
    })();
    await within(closed, 20_000, `every process to exit after SIGKILL (stderr: ${err})`);
    assert.ok(await portRefuses(port), "the port is free");
    assert.deepEqual(tree.filter(alive), [], "no process of the tree is left");
  } finally {
    for (const pid of new Set([...tree, ...treeOf(child.pid)].filter(alive))) {
      try {
        Deno.kill(pid, "SIGKILL");
      } catch { /* gone */ }
    }
    await child.stdin.close().catch(() => {});
    await reader.cancel().catch(() => {});
    await child.status;
  }
}

const SERVE = ["run", ...CRUXE_FLAGS, "main.ts", "serve-mcp", "--transport", "http", "--port", "0", "--no-prewarm"];

Deno.test({
  name: "killing the sandbox launcher stops the sandboxed server it started",
  ignore: Deno.build.os !== "linux",
  fn: () => killAndExpectExit(Deno.execPath(), (repo) => [...SERVE, "--workspace", repo], (tree) => tree[0]),
});

Deno.test({
  name: "killing the launcher's parent stops the launcher and the sandboxed server",
  ignore: Deno.build.os !== "linux",
  fn: () =>
    killAndExpectExit(
      "sh",
      (repo) => ["-c", `"$0" "$@" & wait`, Deno.execPath(), ...SERVE, "--workspace", repo],
      (tree) => tree[0],
    ),
});
