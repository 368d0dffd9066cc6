import assert from "node:assert/strict";
import { FreshnessMonitor, SCAN_COST_FACTOR } from "./freshness_monitor.ts";
import type { FreshnessReply, FreshnessRequest } from "./scan_worker.ts";
import type { ProjectRow } from "../state/registry.ts";
import type { CruxeConfig } from "../core/config.ts";

const project = { project_id: "p1", repo_root: "/nowhere", vcs_mode: "plain" } as ProjectRow;
const config = { maxFileBytes: 1 << 20 } as CruxeConfig;
const view = (publishedAtMs: number) => ({
  db: null,
  schemaStatus: "compatible",
  ref: "live",
  lastIndexedAt: new Date(publishedAtMs).toISOString(),
  publishedAtMs,
});

/** A scanner whose scans end when the test says, each taking `scanMs` by its own account. */
function scriptedScanner(scanMs: number) {
  const calls: FreshnessRequest[] = [];
  const ends: (() => void)[] = [];
  const scanner = (req: FreshnessRequest) => {
    calls.push(req);
    return new Promise<FreshnessReply>((resolve) =>
      ends.push(() => resolve({ id: req.id, scanMs, fingerprint: { files: 1, maxMtimeMs: 0, digest: "d" } }))
    );
  };
  return { calls, ends, scanner };
}

Deno.test("freshness scans of a slow tree never pile up across publishes and keep their cost bounded", async () => {
  const s = scriptedScanner(4000);
  const m = new FreshnessMonitor(config, 0, s.scanner);
  m.status(project, view(1_000));
  // Publishes while the first scan runs: each is a new verdict, none starts a second scan of the same tree.
  for (let i = 2; i <= 10; i++) m.status(project, view(i * 1_000));
  assert.equal(s.calls.length, 1);
  s.ends.shift()!();
  await m.refresh(project, view(10_000)).catch(() => {}); // waits for the running scan
  // That scan took 4 s: the next may run only SCAN_COST_FACTOR times later, also after another publish.
  m.status(project, view(11_000));
  m.status(project, view(12_000));
  assert.equal(s.calls.length, 1, `at most one scan per ${SCAN_COST_FACTOR * 4} s`);
});

Deno.test("freshness scans of a fast tree check each new publish at once", async () => {
  const s = scriptedScanner(1);
  const m = new FreshnessMonitor(config, 1000, s.scanner);
  m.status(project, view(1_000));
  assert.equal(s.calls.length, 1);
  s.ends.shift()!();
  await new Promise((r) => setTimeout(r, 0));
  m.status(project, view(2_000));
  assert.equal(s.calls.length, 2);
  s.ends.shift()!();
});

Deno.test("an interval of Infinity never scans (a one-shot command), and the verdict is still read", () => {
  const s = scriptedScanner(1);
  const m = new FreshnessMonitor(config, Infinity, s.scanner);
  assert.equal(m.status(project, view(1_000)), "fresh");
  assert.equal(m.status(project, view(2_000)), "fresh");
  assert.equal(s.calls.length, 0);
  // Any finite interval scans a new publish at once.
  const o = scriptedScanner(1);
  new FreshnessMonitor(config, 60_000, o.scanner).status(project, view(1_000));
  assert.equal(o.calls.length, 1);
});
