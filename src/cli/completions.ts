/** Shell completion scripts (bash, zsh, fish) generated from the command table. */
import { GLOBAL_OPTIONS, type OptionSpec, type OptionTable } from "./args.ts";
import type { CommandDef } from "./command_def.ts";

/** Shells `cruxe completions` supports. */
export const SHELLS = ["bash", "zsh", "fish"] as const;

/** A command's options with the global ones, untyped. */
function allOptions(t: OptionTable): [string, OptionSpec][] {
  return Object.entries({ ...GLOBAL_OPTIONS, ...t } as OptionTable);
}

function flags(t: OptionTable): string[] {
  return allOptions(t).map(([n]) => `--${n}`);
}

/** Words a shell cannot take literally are quoted for it. */
function quote(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

function bash(commands: CommandDef[]): string {
  const cases = commands.map((c) => `    ${c.name}) opts=${quote(flags(c.options).join(" "))} ;;`).join("\n");
  return `# bash completion for cruxe (source it, or save it as ~/.local/share/bash-completion/completions/cruxe)
_cruxe() {
  local cur cmd opts i
  cur="\${COMP_WORDS[COMP_CWORD]}"
  cmd=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "\${COMP_WORDS[i]}" in -*) ;; *) cmd="\${COMP_WORDS[i]}"; break ;; esac
  done
  if [[ -z "$cmd" ]]; then
    COMPREPLY=($(compgen -W ${quote(commands.map((c) => c.name).join(" ") + " --help --version -v --json")} -- "$cur"))
    return
  fi
  case "$cmd" in
${cases}
    *) opts="" ;;
  esac
  if [[ "$cmd" == completions ]]; then opts="$opts ${SHELLS.join(" ")}"; fi
  if [[ "$cur" == -* || "$cmd" == completions ]]; then
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
  else
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}
complete -F _cruxe cruxe
`;
}

function zsh(commands: CommandDef[]): string {
  const cmds = commands.map((c) => `    ${quote(`${c.name}:${c.summary.replaceAll(":", "\\:")}`)}`).join("\n");
  const cases = commands.map((c) => {
    const specs = allOptions(c.options).map(([n, o]) => {
      const help = o.help.replaceAll("[", "(").replaceAll("]", ")").replaceAll(":", " ");
      const value = o.type === "string"
        ? (o.choices ? `:${o.arg ?? n}:(${o.choices.join(" ")})` : `:${o.arg ?? n}:_files`)
        : "";
      return quote(`${o.multiple ? "*" : ""}--${n}[${help}]${value}`);
    });
    const rest = c.name === "completions" ? ` '1:shell:(${SHELLS.join(" ")})'` : c.args ? " '*:argument:_files'" : "";
    return `      ${c.name}) _arguments ${specs.join(" ")}${rest} ;;`;
  }).join("\n");
  return `#compdef cruxe
# zsh completion for cruxe (save it as _cruxe in a directory on $fpath)
_cruxe() {
  local -a commands
  commands=(
${cmds}
  )
  if (( CURRENT == 2 )); then
    _describe -t commands 'cruxe command' commands
    return
  fi
  local cmd="\${words[2]}"
  shift words
  (( CURRENT-- ))
  case "$cmd" in
${cases}
  esac
}
_cruxe "$@"
`;
}

function fish(commands: CommandDef[]): string {
  const lines = [
    "# fish completion for cruxe (save it as ~/.config/fish/completions/cruxe.fish)",
    `complete -c cruxe -f`,
    ...commands.map((c) => `complete -c cruxe -n __fish_use_subcommand -a ${c.name} -d ${quote(c.summary)}`),
  ];
  for (const c of commands) {
    for (const [n, o] of allOptions(c.options)) {
      const value = o.type === "string" ? (o.choices ? ` -x -a ${quote(o.choices.join(" "))}` : " -r -F") : "";
      lines.push(
        `complete -c cruxe -n ${quote(`__fish_seen_subcommand_from ${c.name}`)} -l ${n}${
          o.short ? ` -s ${o.short}` : ""
        }${value} -d ${quote(o.help)}`,
      );
    }
  }
  lines.push(`complete -c cruxe -n '__fish_seen_subcommand_from completions' -a ${quote(SHELLS.join(" "))}`);
  return lines.join("\n") + "\n";
}

/** The completion script for `shell`, covering every command and option in `commands`. */
export function completionScript(shell: typeof SHELLS[number], commands: CommandDef[]): string {
  return shell === "bash" ? bash(commands) : shell === "zsh" ? zsh(commands) : fish(commands);
}
