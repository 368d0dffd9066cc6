/**
 * What the live-index benchmarks share: a `serve-mcp` over stdio (the SDK's
 * Client), `locate_symbol` and its exact definitions, a bounded poll, and
 * CPU and memory of a process tree from `/proc` (Linux only).
 */
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

/** How long one edit may take to become visible before it counts as a timeout. */
export const BOUND_MS = 60_000;
/** The checkout's root. */
export const ROOT = new URL("../", import.meta.url).pathname;
/** The permissions the server runs with. */
export const FLAGS = ["--allow-read", "--allow-write", "--allow-env", "--allow-run", "--allow-net", "--allow-sys"];

/** The `p`th percentile of `xs`. */
export function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

/** Every process below `pid` (and `pid`), from /proc. */
export function processTree(pid: number): number[] {
  const parent = new Map<number, number>();
  for (const e of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${e.name}/stat`);
      parent.set(Number(e.name), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch { /* gone */ }
  }
  const out = [pid];
  for (let i = 0; i < out.length; i++) for (const [c, p] of parent) if (p === out[i]) out.push(c);
  return out;
}

/** CPU seconds (user + system) used so far by the processes. */
export function cpuSeconds(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks += Number(f[11]) + Number(f[12]);
    } catch { /* gone */ }
  }
  return ticks / 100;
}

/** Resident memory of the processes, MiB. */
export function rssMiB(pids: number[]): number {
  let kb = 0;
  for (const pid of pids) {
    try {
      const m = Deno.readTextFileSync(`/proc/${pid}/status`).match(/VmRSS:\s+(\d+)/);
      if (m) kb += Number(m[1]);
    } catch { /* gone */ }
  }
  return kb / 1024;
}

/** Starts `serve-mcp` on `repo` with its store in `home`; the client and the server's pid. */
export async function serve(home: string, repo: string, extra: string[] = []) {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", ...FLAGS, join(ROOT, "main.ts"), "serve-mcp", "--workspace", repo, "--no-prewarm", ...extra],
    env: { ...Deno.env.toObject(), CRUXE_HOME: home, NO_COLOR: "1" },
    stderr: "ignore",
    cwd: ROOT,
  });
  const client = new Client({ name: "cruxe-live-bench", version: "1.0.0" });
  await client.connect(transport);
  return { client, pid: transport.pid! };
}

/** A `locate_symbol` answer, as far as the benchmarks read it. */
export type Body = { results?: { name: string; path: string; match_tier: string }[]; metadata: Record<string, string> };

/** `locate_symbol {name}` over MCP. */
export async function locate(client: Client, name: string): Promise<Body> {
  const r = await client.callTool({ name: "locate_symbol", arguments: { name } }, undefined, { timeout: BOUND_MS });
  return JSON.parse((r.content as { text: string }[])[0].text);
}

/** The paths where `name` is defined by an exact match in `b`. */
export function definedAt(b: Body, name: string): string[] {
  return (b.results ?? []).filter((r) => r.name === name && r.match_tier === "exact").map((r) => r.path);
}

/** Polls until `ok` (each call also waits inside the server, up to its read-your-writes bound); ms, or null on timeout. */
export async function until(t0: number, ok: () => Promise<boolean>, bound = BOUND_MS): Promise<number | null> {
  while (performance.now() - t0 < bound) {
    if (await ok()) return performance.now() - t0;
    await new Promise((r) => setTimeout(r, 5));
  }
  return null;
}

/** CPU (percent of one core) and memory of the process tree of `pid` over `seconds`, after `settleMs` of rest. */
export async function idleCost(
  pid: number,
  seconds: number,
  settleMs = 10_000,
): Promise<{ cpuPct: number; cpuS: number; wallS: number; rssMiB: number }> {
  await new Promise((r) => setTimeout(r, settleMs));
  const pids = processTree(pid);
  const c0 = cpuSeconds(pids);
  const w0 = performance.now();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const cpuS = cpuSeconds(pids) - c0;
  const wallS = (performance.now() - w0) / 1000;
  return { cpuPct: 100 * cpuS / wallS, cpuS, wallS, rssMiB: rssMiB(pids) };
}
