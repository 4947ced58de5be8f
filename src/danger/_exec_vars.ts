/**
 * Environment assignments that make a later program run code: pagers, editors, git's ssh and
 * diff commands, `LD_PRELOAD`, `BASH_ENV`, `GIT_CONFIG_KEY_n` (odek-go §5.1 covers the git
 * configuration side). A command-valued variable's value is classified as a payload.
 *
 * @module
 */
import type { PartList } from "./_parts.ts";

/** Variables whose value is a command line run by some program. */
const COMMAND_VARS = new Set([
  "PAGER",
  "GIT_PAGER",
  "MANPAGER",
  "SYSTEMD_PAGER",
  "EDITOR",
  "VISUAL",
  "GIT_EDITOR",
  "GIT_SEQUENCE_EDITOR",
  "GIT_SSH_COMMAND",
  "GIT_EXTERNAL_DIFF",
  "GIT_PROXY_COMMAND",
  "PROMPT_COMMAND",
  "RSYNC_RSH",
  "GIT_SSH",
  "GIT_ASKPASS",
  "SSH_ASKPASS",
  "SUDO_ASKPASS",
]);

/** Variables that load code into every program started with them. */
const LOADER_VARS = new Set([
  "LD_PRELOAD",
  "LD_LIBRARY_PATH",
  "LD_AUDIT",
  "DYLD_INSERT_LIBRARIES",
  "BASH_ENV",
  "ENV",
  "NODE_OPTIONS",
  "PYTHONSTARTUP",
  "PYTHONPATH",
  "PERL5OPT",
  "PERL5LIB",
  "RUBYOPT",
  "GIT_EXEC_PATH",
  "GIT_CONFIG_PARAMETERS",
  "GIT_TEMPLATE_DIR",
  "LESSOPEN",
  "LESSCLOSE",
]);

/** Git configuration keys whose value is run as a command (or points at code). */
export function gitKeyExecutes(key: string): boolean {
  const k = key.toLowerCase();
  return /^alias\.[^=]+$/.test(k) ||
    /^core\.(pager|sshcommand|fsmonitor|editor|askpass|hookspath|gitproxy|alternaterefscommand)$/
      .test(k) ||
    /^(diff|merge|filter|sequence|credential|gpg|pager|uploadpack|interactive|protocol|include|includeif|man|web|difftool|mergetool)\..*/
        .test(k) &&
      !/^diff\.(color|renames|algorithm|context|statgraph|noprefix|mnemonicprefix|relative|orderfile|indentheuristic)/
        .test(k);
}

/** The command text a git key runs, or null when its value is not itself a command. */
export function gitKeyCommand(key: string, value: string): string | null {
  const k = key.toLowerCase();
  if (k.startsWith("alias.")) return value.startsWith("!") ? value.slice(1) : null;
  if (/^(core\.hookspath|include\.|includeif\.|protocol\.)/.test(k)) return null;
  return value;
}

/** Classify prefix or exported assignments (`NAME=value`). */
export function classifyAssignments(assigns: [string, string][], parts: PartList): void {
  const keys = new Map<string, string>();
  for (const [name, value] of assigns) {
    const base = name.replace(/\[.*$/, "");
    if (COMMAND_VARS.has(base)) {
      parts.add("code_execution", `sets ${base}, a command other programs run`);
      parts.payload(value.replace(/^\|/, ""), `${base} runs`);
    } else if (LOADER_VARS.has(base)) {
      parts.add("code_execution", `sets ${base}, which loads code into programs`);
    }
    const key = /^GIT_CONFIG_KEY_(\d+)$/.exec(base);
    if (key) keys.set(key[1], value);
  }
  for (const [name, value] of assigns) {
    const index = /^GIT_CONFIG_VALUE_(\d+)$/.exec(name)?.[1];
    const key = index === undefined ? undefined : keys.get(index);
    if (key === undefined || !gitKeyExecutes(key)) continue;
    parts.add("code_execution", `sets the git configuration ${key}, which runs code`);
    const command = gitKeyCommand(key, value);
    if (command !== null) parts.payload(command, `${key} runs`);
  }
}
