/**
 * Copies of remote repositories for team workers: `cruxe repo add URL`
 * registers a URL, and each worker keeps its own copy under its work
 * directory, fetched before it looks for moved refs and before each build.
 * A copy is a git directory with no checkout (`git init`, then `git fetch`
 * of every branch and tag into the same names); ref indexing reads it from
 * git objects like any repository.
 *
 * This module decides which URLs may be fetched and where copies live; the
 * fetch itself is `gitFetchCopy` in `./git.ts`, under that module's rules
 * (the same `-c` overrides and cleared environment), with only the URL's own
 * protocol allowed (`https`, `http`, `ssh`, `git` or `file`; never `ext::`).
 * Requires `--allow-run=git` and write access to the copies' directory.
 */
import { join } from "node:path";
import { CruxeError } from "../core/errors.ts";
import { gitFetchCopy } from "./git.ts";

/** The schemes a remote URL may use, and how git names each as a protocol. */
const SCHEMES: Record<string, string> = { https: "https", http: "http", ssh: "ssh", git: "git", file: "file" };

/** True when `s` is a URL (`scheme://…`) or scp-like `user@host:path` rather than a local path. */
export function isRemoteUrl(s: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(s) || /^[\w.-]+@[\w.-]+:[^/]/.test(s);
}

/** The protocol git uses for `url`; `invalid_input` for a scheme Cruxe does not fetch over. */
export function remoteProtocol(url: string): string {
  if (/^[\w.-]+@[\w.-]+:/.test(url) && !url.includes("://")) return "ssh";
  const scheme = url.slice(0, url.indexOf("://")).toLowerCase();
  const p = SCHEMES[scheme];
  if (!p) {
    throw new CruxeError(
      "invalid_input",
      `Cruxe fetches repositories over ${Object.keys(SCHEMES).join(", ")} only (got ${scheme}://)`,
      { field: "url" },
    );
  }
  return p;
}

/** A repository's name from its URL: the last path part without `.git`. */
export function nameFromUrl(url: string): string {
  const last = url.replace(/\/+$/, "").split(/[/:]/).pop() ?? "";
  return last.replace(/\.git$/, "") || "repo";
}

/** The directory a worker keeps its copy of `url` in, under `dir`: named by a digest of the URL. */
export async function copyDirFor(dir: string, url: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(url)));
  const hex = [...digest.slice(0, 12)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return join(dir, `${nameFromUrl(url).replace(/[^\w.-]/g, "_")}-${hex}`);
}

/** `url` with any password or token in it hidden (`https://user:***@host/…`). */
export function redactedRemote(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/@:]*):[^/@]*@/i, "$1:***@");
}

/**
 * Brings the copy of `url` in `dir` up to date (creating it on first use):
 * every branch and tag fetched to the same name, ones deleted upstream
 * removed. Returns `dir`.
 */
export async function fetchCopy(url: string, dir: string): Promise<string> {
  const protocol = remoteProtocol(url);
  Deno.mkdirSync(dir, { recursive: true });
  let fresh = false;
  try {
    Deno.statSync(join(dir, ".git"));
  } catch {
    fresh = true;
  }
  const failed = await gitFetchCopy(url, dir, protocol, fresh);
  if (failed !== null) {
    throw new CruxeError(
      "storage_unavailable",
      `git could not fetch ${redactedRemote(url)} into ${dir}: ${failed.split(url).join(redactedRemote(url))}`,
      { reason: "fetch_failed" },
    );
  }
  return dir;
}
