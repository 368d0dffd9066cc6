/** `cruxe doctor`: checks a person can act on, each problem with the command that fixes it. */
import { existsSync, statfsSync } from "node:fs";
import { join } from "node:path";
import { scanRepository } from "../../index/scan.ts";
import type { CliContext } from "../context.ts";
import { printJson, printTable } from "../output.ts";
import { LANGUAGES } from "../../index/languages/registry.ts";
import { hasGrammar } from "../../index/grammar_assets.ts";
import { parseAndExtract } from "../../index/parser.ts";
import { IndexReaders } from "../../query/index_reader.ts";
import { VERSION } from "../../core/version.ts";
import { watchChecks } from "./doctor_watch.ts";

/** One doctor finding. */
export interface Check {
  check: string;
  status: "ok" | "warn" | "fail";
  detail: string;
  fix?: string;
}

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
  try {
    const out = new Deno.Command("git", { args: ["--version"], stdout: "piped", stderr: "null" }).outputSync();
    return { check: "git", status: "ok", detail: new TextDecoder().decode(out.stdout).trim() };
  } catch {
    return {
      check: "git",
      status: "warn",
      detail: "git not found: plain-directory scanning will be used",
      fix: "apt-get install git",
    };
  }
}

function ignoreCheck(root: string, maxFileBytes: number): Check {
  try {
    const t0 = performance.now();
    const r = scanRepository(root, { maxFileBytes });
    const rules = [".gitignore", ".cruxeignore", ".git/info/exclude"].filter((f) => existsSync(join(root, f)));
    const sk = Object.entries(r.skipped).filter(([, n]) => n > 0).map(([k, n]) => `${k} ${n}`).join(", ");
    return {
      check: "ignore rules",
      status: "ok",
      detail: `${root} (${r.vcs}): ${r.files.length} files to index in ${(performance.now() - t0).toFixed(0)} ms; ` +
        `rules: ${rules.join(", ") || "built-in only"}${sk ? `; skipped ${sk}` : ""}`,
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

/** Runs every check; exit code 1 when any check failed. */
export async function runDoctor(ctx: CliContext, json: boolean): Promise<number> {
  const checks: Check[] = [
    { check: "cruxe", status: "ok", detail: `version ${VERSION}` },
    { check: "deno", status: "ok", detail: `${Deno.version.deno} (v8 ${Deno.version.v8})` },
    { check: "store", status: "ok", detail: ctx.config.home },
    diskCheck(ctx.config.home),
    gitCheck(),
    ignoreCheck(Deno.cwd(), ctx.config.maxFileBytes),
  ];
  const readers = new IndexReaders(ctx.registry);
  for (const p of ctx.registry.listProjects()) {
    const v = readers.view(p);
    const bad = v.schemaStatus === "reindex_required" || v.schemaStatus === "corrupt_manifest";
    checks.push({
      check: `index ${p.name}`,
      status: bad ? "fail" : v.schemaStatus === "not_indexed" ? "warn" : "ok",
      detail: `${p.repo_root}: ${v.schemaStatus}, ${v.fileCount} files, ${v.symbolCount} symbols`,
      fix: bad
        ? `cruxe index --force --path ${p.repo_root}`
        : v.schemaStatus === "not_indexed"
        ? `cruxe index --path ${p.repo_root}`
        : undefined,
    });
  }
  readers.closeAll();
  checks.push(...watchChecks(ctx.config, ctx.registry.listProjects()));
  checks.push(...await grammarChecks(), ...await permissionChecks(ctx.config.home));
  if (json) printJson({ ok: !checks.some((c) => c.status === "fail"), checks });
  else printTable(["check", "status", "detail", "fix"], checks.map((c) => [c.check, c.status, c.detail, c.fix]));
  return checks.some((c) => c.status === "fail") ? 1 : 0;
}
