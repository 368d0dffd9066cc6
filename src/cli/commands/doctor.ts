/** `cruxe doctor`: checks a person can act on, each problem with the command that fixes it. */
import { existsSync, statfsSync } from "node:fs";
import { join } from "node:path";
import { scanRepository } from "../../index/scan.ts";
import { gitRefusal, gitVersion } from "../../io/git.ts";
import { realpathOrNull } from "../../io/workspace_dir.ts";
import { loadConfig } from "../context.ts";
import { rebuildRegistry, Registry, registryPath, storeIds } from "../../state/registry.ts";
import { indexDamage, indexPath, storeRoot } from "../../state/project_index.ts";
import { storageFix, storageReason } from "../../state/storage_errors.ts";
import { CruxeError } from "../../core/errors.ts";
import { counted, printJson, printTable } from "../output.ts";
import { LANGUAGES } from "../../index/languages/registry.ts";
import { hasGrammar } from "../../io/grammar_assets.ts";
import { parseAndExtract } from "../../index/parser.ts";
import { IndexReaders, schemaFix } from "../../query/index_reader.ts";
import { VERSION } from "../../core/version.ts";
import { userCwd } from "../user_cwd.ts";
import { indexGapCheck } from "./doctor_gap.ts";
import { watchChecks } from "./doctor_watch.ts";
import type { Check } from "./doctor_check.ts";

async function grammarChecks(): Promise<Check[]> {
  const out: Check[] = [];
  for (const l of LANGUAGES) {
    if (!hasGrammar(l.grammar)) {
      out.push({ check: `grammar ${l.id}`, status: "fail", detail: `${l.grammar} missing`, fix: "deno task setup" });
      continue;
    }
    try {
      await parseAndExtract(l.id, "doctor" + l.extensions[0], "");
      out.push({ check: `grammar ${l.id}`, status: "ok", detail: `${l.grammar} loads` });
    } catch (e) {
      out.push({
        check: `grammar ${l.id}`,
        status: "fail",
        detail: (e as Error).message,
        fix: "npm ci && deno task setup",
      });
    }
  }
  return out;
}

async function permissionChecks(home: string): Promise<Check[]> {
  const q: [string, Deno.PermissionDescriptor][] = [
    ["read store", { name: "read", path: home }],
    ["write store", { name: "write", path: home }],
    ["run git", { name: "run", command: "git" }],
    ["env", { name: "env" }],
    ["net (HTTP transport)", { name: "net", host: "127.0.0.1" }],
  ];
  const out: Check[] = [];
  for (const [label, desc] of q) {
    const s = await Deno.permissions.query(desc);
    out.push({
      check: `permission ${label}`,
      status: s.state === "granted" ? "ok" : "warn",
      detail: s.state,
      fix: s.state === "granted" ? undefined : "run through `deno task cruxe` (it grants what Cruxe needs)",
    });
  }
  return out;
}

function gitCheck(): Check {
  const version = gitVersion();
  if (version) return { check: "git", status: "ok", detail: version };
  return {
    check: "git",
    status: "warn",
    detail: "git not found: plain-directory scanning will be used",
    fix: "apt-get install git",
  };
}

async function ignoreCheck(cwd: string, maxFileBytes: number): Promise<Check> {
  const root = realpathOrNull(cwd) ?? cwd; // the scan refuses a root that is not its own realpath
  try {
    const t0 = performance.now();
    const r = await scanRepository(root, { maxFileBytes });
    const refused = gitRefusal(root);
    const rules = [".gitignore", ".cruxeignore", ".git/info/exclude"].filter((f) => existsSync(join(root, f)));
    const sk = Object.entries(r.skipped).filter(([, n]) => n > 0).map(([k, n]) => `${k} ${n}`).join(", ");
    return {
      check: "ignore rules",
      status: "ok",
      detail:
        `${root} (${r.vcs}): ${counted(r.files.length, "file")} to index in ${
          (performance.now() - t0).toFixed(0)
        } ms; ` +
        `rules: ${rules.join(", ") || "built-in only"}${sk ? `; skipped ${sk}` : ""}` +
        (refused ? `; git not used: ${refused}` : ""),
    };
  } catch (e) {
    return { check: "ignore rules", status: "warn", detail: `cannot scan ${root}: ${(e as Error).message}` };
  }
}

function diskCheck(home: string): Check {
  try {
    const s = statfsSync(home);
    const free = Number(s.bavail) * Number(s.bsize);
    const gib = free / 2 ** 30;
    return {
      check: "free disk",
      status: gib < 1 ? "warn" : "ok",
      detail: `${gib.toFixed(1)} GiB free at ${home}`,
      fix: gib < 1 ? "free space or set CRUXE_HOME to a larger disk" : undefined,
    };
  } catch (e) {
    return { check: "free disk", status: "warn", detail: `unknown (${(e as Error).message})` };
  }
}

/** Stores bigger than this are not `quick_check`ed by doctor (it reads every page); the skip is reported. */
export const QUICK_CHECK_MAX_BYTES = 512 * 2 ** 20;

/** Whether the home can be written: the permission a store needs, with the path and the fix when it is missing. */
function homeWriteCheck(home: string): Check {
  const probe = join(home, `.doctor-probe-${Deno.pid}`);
  try {
    Deno.writeTextFileSync(probe, "");
    Deno.removeSync(probe);
    return { check: "store writable", status: "ok", detail: home };
  } catch (e) {
    const reason = storageReason(e) ?? "permission_denied";
    return {
      check: "store writable",
      status: "fail",
      detail: `${home} cannot be written (${reason}: ${(e as Error).message}); missing permission: write. ` +
        "Existing indexes still answer read-only; indexing and syncing are off.",
      fix: storageFix(reason, home),
    };
  }
}

/** Opens the registry; a damaged one is a failed check (repaired with `repair`), not the end of doctor. */
function registryCheck(home: string, repair: boolean): { check: Check; registry: Registry | null } {
  const path = registryPath(home);
  try {
    const registry = Registry.open(home);
    return {
      check: {
        check: "registry",
        status: registry.readOnly ? "warn" : "ok",
        detail: `${path}${registry.readOnly ? " (read-only)" : ""}`,
      },
      registry,
    };
  } catch (e) {
    const ce = e instanceof CruxeError ? e : null;
    const detail = ce?.data.reason ? `${path}: ${ce.data.reason} (${ce.message})` : (e as Error).message;
    // A damaged registry, or something other than a file in its place, is moved aside and rebuilt.
    const at = String(ce?.data.path ?? "").replace(/-(wal|shm)$/, "");
    const movable = at === path && (ce?.data.reason === "corrupt" || ce?.data.reason === "not_a_file");
    if (!repair || !movable) {
      return {
        check: { check: "registry", status: "fail", detail, fix: (ce?.data.fix as string) ?? "cruxe doctor --repair" },
        registry: null,
      };
    }
  }
  const r = rebuildRegistry(home);
  const skipped = r.skipped.map((s) => `${s.store}: ${s.reason}`).join("; ");
  return {
    check: {
      check: "registry",
      status: "ok",
      detail: `repaired: ${r.restored.length} project(s) restored from their stores` +
        `${r.movedTo ? `; what was at ${path} was kept as ${r.movedTo}` : ""}${
          skipped ? `; not restored: ${skipped}` : ""
        }`,
      fix: r.skipped.length ? "cruxe index --path <root> for each project not restored" : undefined,
    },
    registry: Registry.open(home),
  };
}

/** SQLite `quick_check` of every project store under the home (timed; skipped above `QUICK_CHECK_MAX_BYTES`). */
function storeChecks(home: string, registry: Registry | null, readOnlyHome: boolean): Check[] {
  const out: Check[] = [];
  for (const id of storeIds(home)) {
    const dir = join(home, "projects", id);
    const store = indexPath(dir);
    if (!existsSync(store)) continue;
    const size = Deno.statSync(store).size;
    const mib = (size / 2 ** 20).toFixed(1);
    if (size > QUICK_CHECK_MAX_BYTES) {
      out.push({
        check: `store ${id}`,
        status: "ok",
        detail: `${store}: quick_check skipped (${mib} MiB, larger than ${QUICK_CHECK_MAX_BYTES / 2 ** 20} MiB)`,
      });
      continue;
    }
    const root = registry?.getProject(id)?.repo_root ?? storeRoot(dir, { snapshot: readOnlyHome });
    const t0 = performance.now();
    const problem = indexDamage(dir, { snapshot: readOnlyHome });
    const ms = (performance.now() - t0).toFixed(0);
    const ok = problem === null;
    out.push({
      check: `store ${id}`,
      status: ok ? "ok" : "fail",
      detail: `${store}: ${ok ? "ok" : problem} (quick_check ${ms} ms, ${mib} MiB${root ? `, ${root}` : ""})`,
      fix: ok ? undefined : `cruxe index --force --path ${root ?? "<the project's root>"}`,
    });
  }
  return out;
}

/** Runs every check (`repair`: rebuild a damaged registry from the stores); exit code 1 when any check failed. */
export async function runDoctor(configPath: string | undefined, json: boolean, repair = false): Promise<number> {
  const config = loadConfig(configPath);
  const checks: Check[] = [
    { check: "cruxe", status: "ok", detail: `version ${VERSION}` },
    { check: "deno", status: "ok", detail: `${Deno.version.deno} (v8 ${Deno.version.v8})` },
    { check: "store", status: "ok", detail: config.home },
    homeWriteCheck(config.home),
    diskCheck(config.home),
    gitCheck(),
    await ignoreCheck(userCwd(), config.maxFileBytes),
  ];
  const { check, registry } = registryCheck(config.home, repair);
  checks.push(check);
  if (registry) {
    const gap = await indexGapCheck({ config, registry }, userCwd());
    if (gap) checks.push(gap);
    const readers = new IndexReaders(registry);
    for (const p of registry.listProjects()) {
      const refused = gitRefusal(p.repo_root);
      if (refused) {
        checks.push({
          check: `git ${p.name}`,
          status: "warn",
          detail: `${p.repo_root}: git not used (${refused}); indexed as a plain directory`,
          fix: "remove what borrows from elsewhere (e.g. `git repack -a -d`, then delete objects/info/alternates)",
        });
      }
      const v = readers.view(p);
      const bad = v.schemaStatus === "reindex_required" || v.schemaStatus === "corrupt_manifest";
      checks.push({
        check: `index ${p.name}`,
        status: bad ? "fail" : v.schemaStatus === "not_indexed" ? "warn" : "ok",
        detail: `${p.repo_root}: ${v.schemaStatus}${v.problem ? ` (${v.problem})` : ""}, ${v.fileCount} files, ` +
          `${v.symbolCount} symbols`,
        fix: bad
          ? schemaFix(v, p.repo_root) ?? undefined
          : v.schemaStatus === "not_indexed"
          ? `cruxe index --path ${p.repo_root}`
          : undefined,
      });
    }
    readers.closeAll();
  }
  const readOnlyHome = checks.some((c) => c.check === "store writable" && c.status === "fail");
  checks.push(...storeChecks(config.home, registry, readOnlyHome));
  checks.push(...watchChecks(config, registry?.listProjects() ?? []));
  registry?.close();
  checks.push(...await grammarChecks(), ...await permissionChecks(config.home));
  if (json) printJson({ ok: !checks.some((c) => c.status === "fail"), checks });
  else printTable(["check", "status", "detail", "fix"], checks.map((c) => [c.check, c.status, c.detail, c.fix]));
  return checks.some((c) => c.status === "fail") ? 1 : 0;
}
