/**
 * Resolving a workspace path the sandboxed server may not even look at: a
 * symlink elsewhere (`~/link`) that leads into an allowed root. Deno checks
 * the path it is handed, not its target, so inside the sandbox `realpath` of
 * such a link is refused although its target is readable. The launcher,
 * which runs outside the sandbox, answers instead, over a Unix socket in the
 * Cruxe home named by `CRUXE_PATH_RESOLVER`: one JSON line `{"path"}` in, one
 * `{"real"}` out, where `real` is the canonical directory only when it lies
 * inside an allowed root, and null for anything else (missing, a file,
 * outside every root: the same answer, so nothing is learnt of paths outside
 * the roots). Requires, in the launcher, `--allow-read` and `--allow-net` on
 * the socket; in the server, `--allow-net=unix:<socket>`.
 */
import { realpathSync, statSync } from "node:fs";
import { isWithinAnyRoot } from "../core/path_policy.ts";
import { debug } from "../core/log.ts";

/** The variable naming the launcher's socket in the sandboxed server's environment. */
export const RESOLVER_ENV = "CRUXE_PATH_RESOLVER";

/** Bytes of one request or answer line at most (a path is far shorter). */
const MAX_LINE = 64 * 1024;
/** How long the server waits for the launcher's answer before treating the path as unreadable. */
const ANSWER_TIMEOUT_MS = 5_000;

/** The canonical directory `path` leads to when it lies inside one of `roots` (canonical), else null. */
function resolveInside(path: unknown, roots: string[]): string | null {
  if (typeof path !== "string" || !path.startsWith("/") || path.includes("\0")) return null;
  try {
    const real = realpathSync(path);
    return isWithinAnyRoot(roots, real) && statSync(real).isDirectory() ? real : null;
  } catch {
    return null;
  }
}

/** Reads one newline-terminated line (at most MAX_LINE bytes) from `conn`; null when it closes first. */
async function readLine(conn: Deno.Conn): Promise<string | null> {
  let got = new Uint8Array(0);
  const buf = new Uint8Array(4096);
  while (got.length <= MAX_LINE) {
    const nl = got.indexOf(0x0a);
    if (nl >= 0) return new TextDecoder().decode(got.subarray(0, nl));
    const n = await conn.read(buf);
    if (n === null) return null;
    const next = new Uint8Array(got.length + n);
    next.set(got);
    next.set(buf.subarray(0, n), got.length);
    got = next;
  }
  return null;
}

async function answer(conn: Deno.Conn, roots: string[]): Promise<void> {
  try {
    const line = await readLine(conn);
    let path: unknown = null;
    try {
      path = line === null ? null : (JSON.parse(line) as { path?: unknown })?.path;
    } catch { /* not JSON: answered null */ }
    await conn.write(new TextEncoder().encode(JSON.stringify({ real: resolveInside(path, roots) }) + "\n"));
  } catch (e) {
    debug(`path resolver: ${(e as Error).message}`);
  } finally {
    try {
      conn.close();
    } catch { /* closed by the peer */ }
  }
}

/** A running launcher-side resolver. */
export interface LauncherResolver {
  /** The socket the server connects to (hand it over in `RESOLVER_ENV`). */
  socket: string;
  /** Stops answering and removes the socket. */
  close(): void;
}

/**
 * Starts answering resolution requests on a Unix socket at `socket` for
 * paths inside `roots` (canonical). Null when it cannot listen there (no
 * Unix sockets on this platform, or no `--allow-net` for the socket): the
 * server then refuses such paths as it always did.
 */
export function startLauncherResolver(socket: string, roots: string[]): LauncherResolver | null {
  if (Deno.build.os === "windows" || !roots.length) return null;
  let listener: Deno.Listener;
  try {
    try {
      Deno.removeSync(socket); // left by a launcher that was killed
    } catch { /* none */ }
    listener = Deno.listen({ transport: "unix", path: socket });
  } catch (e) {
    debug(`path resolver not started at ${socket}: ${(e as Error).message}`);
    return null;
  }
  (async () => {
    try {
      for await (const conn of listener) void answer(conn, roots);
    } catch { /* closed */ }
  })();
  return {
    socket,
    close() {
      try {
        listener.close();
      } catch { /* already closed */ }
      try {
        Deno.removeSync(socket);
      } catch { /* gone */ }
    },
  };
}

/**
 * The canonical directory inside an allowed root that `path` leads to, as the
 * launcher resolves it (see the module comment), or null when no launcher
 * answers or the path leads nowhere inside the roots.
 */
export async function resolveThroughLauncher(path: string): Promise<string | null> {
  let socket: string | undefined;
  try {
    socket = Deno.env.get(RESOLVER_ENV);
  } catch {
    return null; // no env permission: no launcher to ask
  }
  if (!socket) return null;
  let conn: Deno.Conn | null = null;
  const timer = setTimeout(() => conn?.close(), ANSWER_TIMEOUT_MS);
  try {
    conn = await Deno.connect({ transport: "unix", path: socket });
    await conn.write(new TextEncoder().encode(JSON.stringify({ path }) + "\n"));
    const line = await readLine(conn);
    const real = line === null ? null : (JSON.parse(line) as { real?: unknown }).real;
    return typeof real === "string" ? real : null;
  } catch (e) {
    debug(`path resolver at ${socket}: ${(e as Error).message}`);
    return null;
  } finally {
    clearTimeout(timer);
    try {
      conn?.close();
    } catch { /* closed by the timer or the peer */ }
  }
}
