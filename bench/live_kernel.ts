/**
 * Live-index benchmark on a large C tree that is already indexed (not a
 * test): how long after a file is written does a running `serve-mcp` answer
 * the new truth, when the index holds tens of thousands of files (the Linux
 * kernel). It edits the tree in place and undoes every edit at the end, byte
 * for byte; the index must already exist in HOME (`cruxe index` takes most
 * of an hour on the kernel on a 2-core machine, which is why the Go-sized
 * `bench/live_bench.ts` copies and indexes its tree itself and this one does
 * not).
 *
 * Edits cycle through: a C function appended to an existing `.c` file
 * (visible when `locate_symbol` finds it there), that function renamed (the
 * new name found, the old one gone), and a file deleted (a file this bench
 * wrote before the server started; its function no longer found). Then the
 * serving process tree's idle CPU and memory over S seconds.
 *
 * Usage: deno run -A bench/live_kernel.ts --home HOME [--root DIR] [--edits N] [--idle-seconds S]
 */
import { parseArgs } from "node:util";
import { join } from "node:path";
import { definedAt, idleCost, locate, pct, serve, until } from "./live_common.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    home: { type: "string" },
    root: { type: "string", default: "/work/corpora/linux" },
    edits: { type: "string", default: "30" },
    "idle-seconds": { type: "string", default: "60" },
  },
});
if (!values.home) throw new Error("--home HOME (a Cruxe home that already holds the tree's index) is required");
const home = values.home;
const root = values.root!;
const EDITS = Number(values.edits);
const IDLE_S = Number(values["idle-seconds"]);
const DEL_DIR = "zz_cruxe_live_bench";

/** `.c` files under `dir` (up to `limit`), skipping hidden directories. */
function cFiles(dir: string, rel = "", out: string[] = [], limit = 4000): string[] {
  for (const e of Deno.readDirSync(join(dir, rel))) {
    if (out.length >= limit) break;
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory && !e.name.startsWith(".") && r !== DEL_DIR) cFiles(dir, r, out, limit);
    else if (e.isFile && e.name.endsWith(".c")) out.push(r);
  }
  return out;
}

function loadAverage(): string {
  return Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");
}

const targets = cFiles(root).filter((_, i) => i % 13 === 0);
const originals = new Map<string, Uint8Array>();
const keep = (file: string) => {
  if (!originals.has(file)) originals.set(file, Deno.readFileSync(join(root, file)));
};
Deno.mkdirSync(join(root, DEL_DIR), { recursive: true });
for (let k = 0; k < EDITS; k++) {
  Deno.writeTextFileSync(join(root, DEL_DIR, `del${k}.c`), `int cruxe_bench_delete_${k}(void) { return ${k}; }\n`);
}

const s = await serve(home, root);
try {
  // The server catches up with what changed while it was down (the files written above) before timing starts.
  const t0 = performance.now();
  await until(t0, async () => {
    const st = await s.client.callTool({ name: "index_status", arguments: {} });
    const body = JSON.parse((st.content as { text: string }[])[0].text);
    return body.watch?.mode !== "off" && body.watch?.pending_changes === 0 && !body.active_job &&
      definedAt(await locate(s.client, `cruxe_bench_delete_${EDITS - 1}`), `cruxe_bench_delete_${EDITS - 1}`)
          .length === 1;
  }, 900_000);
  console.log(`server ready and caught up after ${(performance.now() - t0).toFixed(0)} ms; load ${loadAverage()}`);

  const lat: Record<string, number[]> = { add: [], rename: [], delete: [] };
  let timeouts = 0;
  for (let e = 0; e < EDITS; e++) {
    const kind = (["add", "rename", "delete"] as const)[e % 3];
    const k = e - (e % 3); // an add and its rename share a file and a number
    const file = targets[(k * 7919) % targets.length];
    let ms: number | null;
    if (kind === "add") {
      keep(file);
      const t = performance.now();
      Deno.writeTextFileSync(join(root, file), `\nint cruxe_live_add_${k}(void) { return ${k}; }\n`, { append: true });
      ms = await until(t, async () =>
        definedAt(await locate(s.client, `cruxe_live_add_${k}`), `cruxe_live_add_${k}`)
          .includes(file));
    } else if (kind === "rename") {
      const text = Deno.readTextFileSync(join(root, file)).replace(`cruxe_live_add_${k}(`, `cruxe_live_ren_${k}(`);
      const t = performance.now();
      Deno.writeTextFileSync(join(root, file), text);
      ms = await until(
        t,
        async () =>
          definedAt(await locate(s.client, `cruxe_live_ren_${k}`), `cruxe_live_ren_${k}`).includes(file) &&
          definedAt(await locate(s.client, `cruxe_live_add_${k}`), `cruxe_live_add_${k}`).length === 0,
      );
    } else {
      const t = performance.now();
      Deno.removeSync(join(root, DEL_DIR, `del${e}.c`));
      ms = await until(
        t,
        async () =>
          definedAt(await locate(s.client, `cruxe_bench_delete_${e}`), `cruxe_bench_delete_${e}`).length === 0,
      );
    }
    if (ms === null) timeouts++;
    else lat[kind].push(ms);
  }
  const all = [...lat.add, ...lat.rename, ...lat.delete];
  console.log(
    `edit-to-visible over ${all.length} edits (${root}, ${targets.length} candidate files): p50 ` +
      `${pct(all, 50).toFixed(0)} ms, p95 ${pct(all, 95).toFixed(0)} ms, max ${Math.max(...all).toFixed(0)} ms; ` +
      `timeouts ${timeouts}; load ${loadAverage()}`,
  );
  for (const [kind, xs] of Object.entries(lat)) {
    if (xs.length) {
      console.log(`  ${kind}: n ${xs.length}, p50 ${pct(xs, 50).toFixed(0)} ms, p95 ${pct(xs, 95).toFixed(0)} ms`);
    }
  }
  if (IDLE_S > 0) {
    const idle = await idleCost(s.pid, IDLE_S);
    console.log(
      `idle while watching: ${idle.cpuPct.toFixed(2)} % of one core over ${idle.wallS.toFixed(0)} s; ` +
        `RSS ${idle.rssMiB.toFixed(0)} MiB (process tree)`,
    );
  }
} finally {
  await s.client.close();
  for (const [file, bytes] of originals) Deno.writeFileSync(join(root, file), bytes);
  Deno.removeSync(join(root, DEL_DIR), { recursive: true });
  console.log(`restored ${originals.size} edited files and removed ${DEL_DIR}/`);
}
