/**
 * Where a path lies, lexically (the classifier never touches the file system): the workspace,
 * `/tmp`, a protected root, a secret-bearing or startup file, the rest of the home, the system.
 *
 * @module
 */
import { posix } from "node:path";
import picomatch from "picomatch";
import { protectedReason } from "../../tools/_catalogue/protected_paths.ts";
import { DYNAMIC } from "./_types.ts";

/** The kind of place a path names. */
export type PlaceKind =
  | "workspace" // inside the workspace
  | "workspace_root" // the workspace itself, or every entry of it (`*`)
  | "host_runs" // a file in the workspace the host runs later (hooks, .git/config, .envrc …)
  | "scratch" // the session host's private scratch (TMPDIR)
  | "tmp" // the host's /tmp (read-only in the sandbox)
  | "sink" // /dev/null, /dev/stdout, /dev/fd/N …: no file is touched
  | "protected" // a protected root or inside one
  | "secret" // credentials, keys, shell history, process environments
  | "startup" // shell startup files: run by every later shell
  | "home" // elsewhere in the home directory
  | "system" // /etc, /usr, /var …
  | "kernel" // /proc, /sys and character devices
  | "device" // block devices and raw memory
  | "tcp" // bash's /dev/tcp/HOST/PORT and /dev/udp/HOST/PORT
  | "outside" // any other absolute path
  | "unresolved"; // depends on run-time values

/** A located path. */
export interface Place {
  kind: PlaceKind;
  /** Absolute, normalised path (the raw text when unresolved; the host for `tcp`). */
  path: string;
  /** For `host_runs`: what the file is (`git hooks`, `direnv's .envrc` …). */
  reason?: string;
  /** For `tcp`: the port of `/dev/tcp/HOST/PORT`. */
  port?: number;
}

/** What a {@linkcode PathScope} knows besides the workspace, home and protected roots. */
export interface PathScopeExtras {
  /** The session host's scratch (`TMPDIR`). */
  scratchDir?: string;
  /** Protected places the repositories' configuration names (relative to the workspace). */
  protectedExtra?: readonly string[];
  /** Every `.git` entry in the workspace (absolute). */
  repositories?: readonly string[];
}

const SINKS =
  /^\/dev\/(null|zero|full|random|urandom|stdin|stdout|stderr|tty|fd\/\d+)$|^\/proc\/self\/fd\/\d+$/;
const DEVICES =
  /^\/dev\/(sd|hd|vd|xvd|nvme|mmcblk|disk|loop|dm-|md|sr|mapper\/|mem$|kmem$|port$|nbd)/;
const HOME_SECRETS = [
  ".ssh",
  ".aws",
  ".gnupg",
  ".netrc",
  ".git-credentials",
  ".npmrc",
  ".pypirc",
  ".pgpass",
  ".my.cnf",
  ".docker/config.json",
  ".kube",
  ".azure",
  ".password-store",
  ".vault-token",
  ".config/gh",
  ".config/gcloud",
  ".config/hub",
  ".local/share/keyrings",
  ".cargo/credentials",
  ".cargo/credentials.toml",
  ".gem/credentials",
  ".terraform.d/credentials.tfrc.json",
  ".bash_history",
  ".zsh_history",
  ".zhistory",
  ".history",
  ".sh_history",
  ".python_history",
  ".node_repl_history",
  ".psql_history",
  ".mysql_history",
  ".sqlite_history",
  ".lesshst",
  ".local/share/fish/fish_history",
];
const HOME_STARTUP = [
  ".bashrc",
  ".bash_profile",
  ".bash_login",
  ".bash_logout",
  ".bash_aliases",
  ".profile",
  ".zshrc",
  ".zprofile",
  ".zshenv",
  ".zlogin",
  ".zlogout",
  ".kshrc",
  ".cshrc",
  ".tcshrc",
  ".login",
  ".logout",
  ".config/fish",
  ".config/autostart",
  ".config/systemd",
  ".gitconfig",
  ".config/git",
  ".inputrc",
  ".xinitrc",
  ".xprofile",
];
const SYSTEM_SECRETS = ["/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/sudoers.d", "/root"];
const SYSTEM_STARTUP = ["/etc/profile", "/etc/profile.d", "/etc/bash.bashrc", "/etc/environment"];
const SYSTEM = ["/etc", "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt"]
  .concat(["/var", "/boot", "/srv", "/snap", "/root", "/run", "/nix", "/Library", "/System"]);

/** True when `path` is `root` or inside it (both absolute and normalised). */
export function within(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith("/") ? root : `${root}/`);
}

function underAny(path: string, roots: string[]): boolean {
  return roots.some((root) => within(path, root));
}

/** `dir` and each of its ancestors, longest first (`/a/b` → `/a/b`, `/a`, `/`). */
function selfAndAncestors(dir: string): string[] {
  const out = [dir];
  while (out.at(-1) !== "/") out.push(posix.dirname(out.at(-1)!));
  return out;
}

/** Locates paths for one workspace, home and set of protected roots. */
export class PathScope {
  readonly #workspace: string;
  readonly #home: string;
  readonly #protected: string[];
  /** Writable added directories (`--add-dir`): located like the workspace. */
  readonly #added: string[];
  readonly #scratch: string | null;
  readonly #extra: readonly string[];
  /** `.git` entries of the workspace. */
  readonly #repositories: string[];

  constructor(
    workspace: string,
    home: string,
    protectedRoots: string[],
    addDirs: readonly { path: string; readOnly: boolean }[] = [],
    extras: PathScopeExtras = {},
  ) {
    this.#workspace = posix.normalize(workspace);
    this.#home = posix.normalize(home);
    this.#protected = protectedRoots.map((root) => posix.normalize(root));
    this.#added = addDirs.filter((d) => !d.readOnly).map((d) => posix.normalize(d.path));
    this.#scratch = extras.scratchDir ? posix.normalize(extras.scratchDir) : null;
    this.#extra = extras.protectedExtra ?? [];
    // The scan's `.git` entries; without a scan, the workspace's own `.git` as written.
    this.#repositories = extras.repositories !== undefined
      ? extras.repositories.map((r) => posix.normalize(r))
      : [posix.join(this.#workspace, ".git")];
  }

  /** The scratch directory (`TMPDIR`), or `/tmp` when the host has none. */
  get scratchDir(): string {
    return this.#scratch ?? "/tmp";
  }

  /** Whether `path` (absolute, normalised) is a `.git` entry of the workspace. */
  isRepository(path: string): boolean {
    return this.#repositories.includes(path) ||
      (within(path, this.#workspace) && posix.basename(path) === ".git");
  }

  /** The workspace, normalised. */
  get workspace(): string {
    return this.#workspace;
  }

  /** Resolve `raw` against `cwd` (null: unknown) to a normalised absolute path, or null. */
  resolve(raw: string, cwd: string | null): string | null {
    if (raw.includes(DYNAMIC) || raw === "") return null;
    if (raw.startsWith("/")) return posix.normalize(raw).replace(/(.)\/$/, "$1");
    if (cwd === null) return null;
    return posix.normalize(posix.join(cwd, raw)).replace(/(.)\/$/, "$1");
  }

  /** Where `raw` (relative to `cwd`) lies. */
  locate(raw: string, cwd: string | null): Place {
    const tcp = /^\/dev\/(?:tcp|udp)\/([^/]+)(?:\/(\d{1,5}))?/.exec(raw);
    if (tcp) {
      return { kind: "tcp", path: tcp[1], ...(tcp[2] ? { port: Number(tcp[2]) } : {}) };
    }
    const path = this.resolve(raw, cwd);
    if (path === null) return { kind: "unresolved", path: raw.replaceAll(DYNAMIC, "$?") };
    const kind = this.#kindOf(path);
    if (kind === "workspace") {
      const reason = protectedReason(posix.relative(this.#workspace, path), this.#extra);
      if (reason !== undefined) return { kind: "host_runs", path, reason };
    }
    return { kind, path };
  }

  /**
   * What deleting (or moving away) `path` would take with it besides itself: `protected` when a
   * protected root lies inside it, `workspace` when the workspace or a writable added directory
   * does (`rm -rf ..`, `rm -rf /tmp` for a workspace under `/tmp`), else `null`. A path with glob
   * characters (`/tmp/*`, `/tmp/proj*`) counts when it matches such a directory or an ancestor of
   * one; `DIR/…` (what `find DIR … -delete` removes) counts for the workspace only, since a filter
   * may spare the rest. Paths inside a protected root or the workspace are not "holding" ones: see
   * `locate`.
   *
   * @param path an absolute, normalised path, as `locate` returns it
   */
  holds(path: string): "protected" | "repository" | "workspace" | null {
    // `DIR/…` (find -delete) is everything below DIR; `DIR/…!` everything below it with no
    // filter that spares a repository's files.
    const unfiltered = path.endsWith("/…!");
    const base = unfiltered ? path.slice(0, -1) : path;
    const below = base.endsWith("/…") ? base.slice(0, -2) || "/" : null;
    const glob = below === null && /[*?[]/.test(path)
      ? picomatch(path, { dot: true, posix: true })
      : null;
    const covers = (dir: string) =>
      below !== null
        ? dir !== below && within(dir, below)
        : selfAndAncestors(dir).some((a) => (glob ? glob(a) : a === path && a !== dir));
    // A find filter (`-name x`) may spare a protected root: `DIR/…` asks rather than blocks.
    if (below === null && this.#protected.some(covers)) return "protected";
    if ([this.#workspace, ...this.#added].some(covers)) return "workspace";
    // A find filter (`-name '*.orig'`) spares the repository; an unfiltered walk does not.
    const repository = (r: string) =>
      below !== null
        ? within(r, below)
        : selfAndAncestors(r).some((a) => (glob ? glob(a) : a === path));
    if ((below === null || unfiltered) && this.#repositories.some(repository)) return "repository";
    return null;
  }

  #kindOf(path: string): PlaceKind {
    if (underAny(path, this.#protected)) return "protected";
    const home = this.#home;
    const inHome = home !== "/" && within(path, home);
    // Secrets and startup files of the home stay what they are when the workspace is the home.
    if (inHome && path !== home) {
      const rest = path.slice(home.length + 1);
      if (HOME_SECRETS.some((s) => within(rest, s))) return "secret";
      if (HOME_STARTUP.some((s) => within(rest, s))) return "startup";
    }
    const ws = this.#workspace;
    if (path === ws || (posix.dirname(path) === ws && /^[.]?\*$/.test(posix.basename(path)))) {
      return "workspace_root";
    }
    if (within(path, ws)) return "workspace";
    for (const dir of this.#added) {
      if (path === dir || (posix.dirname(path) === dir && /^[.]?\*$/.test(posix.basename(path)))) {
        return "workspace_root";
      }
      if (within(path, dir)) return "workspace";
    }
    if (this.#scratch !== null && within(path, this.#scratch)) return "scratch";
    if (inHome) return "home";
    if (within(path, "/tmp")) return "tmp";
    if (SINKS.test(path)) return "sink";
    if (DEVICES.test(path)) return "device";
    if (/^\/proc\/[^/]+\/environ$/.test(path)) return "secret";
    if (within(path, "/dev") || within(path, "/proc") || within(path, "/sys")) return "kernel";
    if (underAny(path, SYSTEM_SECRETS)) return "secret";
    if (underAny(path, SYSTEM_STARTUP)) return "startup";
    if (path === "/" || underAny(path, SYSTEM)) return "system";
    return "outside";
  }
}
