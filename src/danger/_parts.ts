/**
 * Collects the parts of one simple command, turning paths, hosts and payloads into classes
 * (design §3): writes by where they land, deletions by what they lose, reads only when they
 * touch secrets or a protected root.
 *
 * @module
 */
import type { Place, PlaceKind } from "./_paths.ts";
import { DYNAMIC, type Scope } from "./_types.ts";
import { forgetVariables, type WalkState } from "./_walk_state.ts";
import { denyPart } from "./match_deny_rules.ts";
import type { RiskClass, VerdictPart } from "./verdict.ts";

const WRITE_DETAIL: Partial<Record<PlaceKind, string>> = {
  startup: "writes a shell startup file",
  secret: "writes a secret-bearing path",
  home: "writes outside the workspace",
  system: "writes outside the workspace",
  outside: "writes outside the workspace",
  tmp:
    "writes in the host's /tmp, which is read-only in the sandbox (TMPDIR is the writable scratch)",
};

/** The detail every write to a file the host runs later starts with (the verdict always asks). */
export const HOST_RUNS_DETAIL = "writes a file the host runs later";

/** Loopback host names and addresses. */
const LOOPBACK = /^(localhost|[a-z0-9-]+\.localhost|127(\.\d{1,3}){1,3}|\[?::1\]?)$/i;

/** The parts of one command, with the helpers rules use. */
export class PartList {
  readonly #parts: VerdictPart[];
  readonly #scope: Scope;
  readonly #subject: string;
  readonly #cwd: string | null;
  readonly #state: WalkState;

  constructor(
    scope: Scope,
    subject: string,
    cwd: string | null,
    state: WalkState,
    parts: VerdictPart[] = [],
  ) {
    this.#parts = parts;
    this.#scope = scope;
    this.#subject = subject;
    this.#cwd = cwd;
    this.#state = state;
  }

  /** The same list for a command run in another directory (`env -C`, `sudo -D`). */
  in(cwd: string | null): PartList {
    return new PartList(this.#scope, this.#subject, cwd, this.#state, this.#parts);
  }

  /** The command's text, as its parts' subject. */
  get subjectText(): string {
    return this.#subject;
  }

  /** The parts so far. */
  get list(): VerdictPart[] {
    return this.#parts;
  }

  /** The directory the command runs in (null: unknown). */
  get cwd(): string | null {
    return this.#cwd;
  }

  /** Resolve a path operand (null when it depends on run-time values). */
  resolve(raw: string): string | null {
    return this.#scope.paths.resolve(raw, this.#cwd);
  }

  /** Add a part of this command. */
  add(riskClass: RiskClass, detail: string, targets: string[] = []): void {
    this.#parts.push({ riskClass, subject: this.#subject, targets, detail });
  }

  /** A blocked part when a deny rule names the located path (`read`, `write`, `remove` call it). */
  denyPath(place: Place): void {
    if (place.kind === "unresolved" || place.kind === "tcp") return;
    const rule = this.#scope.deny.path(place.path);
    if (rule) this.#parts.push(denyPart(this.#subject, rule, [place.path]));
  }

  /** Add parts produced elsewhere (a payload's). */
  addAll(parts: VerdictPart[]): void {
    this.#parts.push(...parts);
  }

  /** A path the command reads: escalates only for protected roots, secrets and sockets. */
  read(raw: string): void {
    if (raw === "") return;
    const place = this.#scope.paths.locate(raw, this.#cwd);
    this.denyPath(place);
    if (place.kind === "protected") this.add("blocked", "reads a protected root", [place.path]);
    else if (place.kind === "secret") {
      this.add("system_write", "reads a secret-bearing path", [place.path]);
    } else if (place.kind === "tcp") this.network(place.path, undefined, place.port);
  }

  /** A path the command writes (creates, truncates, appends to, changes the mode of). */
  write(raw: string): void {
    if (raw === "") return;
    const place = this.#scope.paths.locate(raw, this.#cwd);
    this.denyPath(place);
    switch (place.kind) {
      case "workspace":
      case "workspace_root":
        return this.add("local_write", "writes in the workspace", [place.path]);
      case "scratch":
        return this.add("local_write", "writes in the private scratch ($TMPDIR)", [place.path]);
      case "host_runs":
        return this.add("system_write", `${HOST_RUNS_DETAIL} (${place.reason})`, [place.path]);
      case "sink":
        return;
      case "protected":
        return this.add("blocked", "writes into a protected root", [place.path]);
      case "device":
        return this.add("blocked", "writes to a block device", [place.path]);
      case "kernel":
        return this.add("privileged", "writes to a kernel interface", [place.path]);
      case "tcp":
        return this.network(place.path, undefined, place.port);
      case "unresolved":
        return this.add("unknown", "writes to a path known only at run time", [place.path]);
      default:
        return this.add("system_write", WRITE_DETAIL[place.kind]!, [place.path]);
    }
  }

  /** A path the command deletes (or empties, or moves away). */
  remove(raw: string): void {
    if (raw === "") return;
    const located = this.#scope.paths.locate(raw, this.#cwd);
    const holds = located.kind === "unresolved" || located.kind === "tcp"
      ? null
      : this.#scope.paths.holds(located.path);
    // `DIR/…!` (an unfiltered find) is shown as `DIR/…`, like a filtered one.
    const place = { ...located, path: located.path.replace(/\/…!$/, "/…") };
    this.denyPath(place);
    if (holds === "protected") {
      return this.add("blocked", "deletes a directory that holds a protected root", [place.path]);
    }
    if (holds === "workspace" && place.kind !== "workspace_root") {
      return this.add("destructive", "deletes a directory that holds the workspace", [place.path]);
    }
    if (
      place.kind !== "workspace_root" &&
      (holds === "repository" || this.#scope.paths.isRepository(place.path))
    ) {
      return this.add("destructive", "deletes a git repository (its history)", [place.path]);
    }
    switch (place.kind) {
      case "workspace":
        return this.add("local_write", "deletes in the workspace", [place.path]);
      case "scratch":
        return this.add("local_write", "deletes in the private scratch ($TMPDIR)", [place.path]);
      case "host_runs":
        return this.add("system_write", `${HOST_RUNS_DETAIL} (${place.reason})`, [place.path]);
      case "workspace_root":
        return this.add("destructive", "deletes the whole workspace", [place.path]);
      case "protected":
        return this.add("blocked", "deletes in a protected root", [place.path]);
      case "device":
      case "kernel":
      case "sink":
        return this.add("privileged", "deletes a device or kernel file", [place.path]);
      case "tcp":
        return;
      case "unresolved":
        return this.add("unknown", "deletes a path known only at run time", [place.path]);
      default:
        return this.add("destructive", "deletes outside the workspace", [place.path]);
    }
  }

  /** The command reaches `host` (empty when unknown), on `port` when known. */
  network(host: string, detail = "reaches the network", port?: number): void {
    // The session has its own loopback: reaching it needs no network (design §2); a host port
    // the operator granted is forwarded into it, and no approval is needed for it either.
    if (LOOPBACK.test(host)) {
      const granted = port !== undefined && (this.#scope.context.hostPorts ?? []).includes(port);
      const where = granted
        ? `host port ${port} (granted)`
        : "reaches only the session's own loopback";
      this.add("read", where, [host]);
    } else this.add("network", detail, host && !host.includes(DYNAMIC) ? [host] : []);
  }

  /**
   * The command runs `text` as a shell script (null: known only at run time). `inShell`: in
   * this shell (`eval`, `source`), so its assignments and `cd` are seen by later commands.
   */
  payload(text: string | null, how: string, inShell = false): void {
    if (text === null || text.includes(DYNAMIC)) {
      this.opaque(how, inShell);
      return;
    }
    this.addAll(this.#scope.script(text, this.#cwd, inShell ? this.#state : undefined));
  }

  /** The command runs code nobody can read before it runs (decode-and-execute). */
  opaque(how: string, inShell = false): void {
    this.add("code_execution", `${how} code known only at run time`);
    this.add("network", `${how} code known only at run time, which may reach the network`);
    if (inShell) {
      forgetVariables(this.#state);
      this.#state.cwd = null;
    }
  }

  /**
   * The command runs the script file `raw`: by its content when this script wrote it (or it is
   * a `<(…)`), else as a contained program (`code_execution`) whose path is checked.
   */
  script(raw: string, how: string, inShell = false): void {
    const path = this.resolve(raw);
    const content = path === null ? undefined : this.#state.files.get(path);
    if (raw.includes(DYNAMIC)) this.opaque(how, inShell);
    else if (content !== undefined) this.payload(content, how, inShell);
    else {
      this.add("code_execution", `${how} the script ${raw}`);
      this.read(raw);
      if (inShell) forgetVariables(this.#state);
    }
  }
}
