/**
 * Server memory probe (numbers, not pass/fail): starts `serve-mcp` on stdio
 * over an existing index and prints the resident memory of its process tree
 * (the sandbox parent and the server, each shown) at start, after
 * `index_status`, one `locate_symbol`, ten `search_code` and ten
 * `get_code_context` calls, 3 s idle and, with `--idle`, 65 s idle (after the
 * idle reader workers retire). Queries suit the Linux kernel when WORKSPACE
 * ends in `linux`, else the Go tree.
 *
 * Usage: deno run -A bench/rss_probe.ts HOME WORKSPACE [--idle]
 *   (CRUXE_READER_WORKERS in the environment sizes the server's pool as usual)
 */
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CRUXE_FLAGS } from "../tests/mcp_helpers.ts";

const [home, workspace, ...rest] = Deno.args;
if (!home || !workspace) throw new Error("usage: rss_probe.ts HOME WORKSPACE [--idle]");
const main = new URL("../main.ts", import.meta.url).pathname;

/** Resident memory of a process and its descendants, with each process's share. */
function treeRss(pid: number): string {
  let total = 0;
  const parts: string[] = [];
  const stack = [pid];
  while (stack.length) {
    const p = stack.pop()!;
    try {
      const kb = Number(Deno.readTextFileSync(`/proc/${p}/status`).match(/VmRSS:\s+(\d+)/)?.[1] ?? 0);
      total += kb;
      parts.push(`${p}: ${Math.round(kb / 1024)}`);
      for (const t of Deno.readDirSync(`/proc/${p}/task`)) {
        const kids = Deno.readTextFileSync(`/proc/${p}/task/${t.name}/children`).trim();
        if (kids) stack.push(...kids.split(/\s+/).map(Number));
      }
    } catch { /* exited */ }
  }
  return `${Math.round(total / 1024)} MiB (${parts.join(", ")} MiB)`;
}

const kernel = workspace.replace(/\/+$/, "").endsWith("linux");
const name = kernel ? "kmalloc" : "NewReader";
const queries = kernel
  ? ["spin lock irqsave", "kmalloc_array", "page fault handler", "usb_submit_urb", "dma map single"]
    .concat(["net_device ops", "ext4 journal commit", "mutex_lock", "pci probe", "workqueue"])
  : ["parse http header", "read all bytes", "NewRequest", "tls handshake", "json decoder"]
    .concat(["goroutine scheduler", "map iteration order", "Reader", "bufio scanner split", "atomic load"]);

const transport = new StdioClientTransport({
  command: Deno.execPath(),
  args: ["run", ...CRUXE_FLAGS, main, "serve-mcp", "--no-prewarm", "--workspace", workspace],
  env: { ...Deno.env.toObject(), CRUXE_HOME: home },
  stderr: "ignore",
});
const client = new Client({ name: "rss-probe", version: "1" });
await client.connect(transport);
const pid = transport.pid ?? 0;
const load = () => Deno.loadavg().map((x) => x.toFixed(1)).join(" ");
console.log(`${workspace}; load average ${load()}`);
console.log(`started: ${treeRss(pid)}`);
await client.callTool({ name: "index_status", arguments: {} });
console.log(`after index_status: ${treeRss(pid)}`);
await client.callTool({ name: "locate_symbol", arguments: { name } });
console.log(`after 1 locate_symbol: ${treeRss(pid)}`);
for (const query of queries) await client.callTool({ name: "search_code", arguments: { query } });
console.log(`after 10 search_code: ${treeRss(pid)}`);
for (const query of queries) await client.callTool({ name: "get_code_context", arguments: { query } });
console.log(`after 10 get_code_context: ${treeRss(pid)}`);
await new Promise((r) => setTimeout(r, 3000));
console.log(`idle 3 s: ${treeRss(pid)}`);
if (rest.includes("--idle")) {
  await new Promise((r) => setTimeout(r, 65_000));
  console.log(`idle 68 s (reader workers retired): ${treeRss(pid)}`);
}
await client.close();
