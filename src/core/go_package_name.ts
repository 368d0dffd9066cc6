/** Go import paths: the name a package gets when its import gives none. */

/** The last element of an import path, as the package is named by default (`gopkg.in/yaml.v3` → `yaml`). */
export function defaultPackageName(path: string): string {
  let last = path.slice(path.lastIndexOf("/") + 1);
  if (/^v\d+$/.test(last)) {
    const rest = path.slice(0, path.lastIndexOf("/"));
    last = rest.slice(rest.lastIndexOf("/") + 1);
  }
  return last.replace(/\.v\d+$/, "").replace(/^go-/, "").replace(/-go$/, "").replace(/[^A-Za-z0-9_]/g, "_");
}
