/**
 * Team routing: which repository and ref of a team store a call reads, and
 * the published head it reads there. A call names the repository by
 * `workspace` (or `repo`): its name, or the path it was registered with;
 * without one, the store's only repository. Without `ref`, the first ref its
 * patterns name that is not a pattern.
 */
import { CruxeError } from "../core/errors.ts";
import type { TeamHead, TeamRepo, TeamStore } from "../state/pg/team_store.ts";

/** Which repository and ref a team call reads. */
export interface TeamTarget {
  repo: TeamRepo;
  ref: string;
}

/**
 * The repository `repo` names among `repos` and the ref a call reads.
 * `project_not_found` for an unknown repository (or none named among
 * several), `invalid_input` when no ref is given and none is the default.
 */
export function teamTarget(repos: TeamRepo[], repo: string | undefined, ref: string | undefined): TeamTarget {
  const r = repo === undefined
    ? (repos.length === 1 ? repos[0] : undefined)
    : repos.find((x) => x.name === repo || x.path === repo);
  if (!r) {
    throw new CruxeError(
      "project_not_found",
      repo === undefined
        ? `The team store holds ${repos.length} repositories; name one (workspace, or --repo NAME): ${
          repos.map((x) => x.name).join(", ")
        }`
        : `No repository ${JSON.stringify(repo)} in the team store; add it with cruxe repo add PATH --store URL`,
      { repo: repo ?? null, repos: repos.map((x) => x.name) },
    );
  }
  const name = ref ?? r.refPatterns.find((p) => !p.includes("*"));
  if (!name) {
    throw new CruxeError("invalid_input", `Name the ref to read (ref): ${r.name} indexes ${r.refPatterns.join(",")}`);
  }
  return { repo: r, ref: name };
}

/** The published head `t` reads, or `ref_not_indexed` naming how it gets published. */
export async function teamHead(store: TeamStore, t: TeamTarget): Promise<TeamHead> {
  const head = await store.head(t.repo.id, t.ref);
  if (head) return head;
  throw new CruxeError(
    "ref_not_indexed",
    `Ref ${t.ref} of ${t.repo.name} has no published index in the team store yet; a worker publishes it ` +
      `(cruxe worker --store URL), or cruxe index --store URL --path ${t.repo.path} --ref ${t.ref}.`,
    { requested_ref: t.ref, repo: t.repo.name },
  );
}
