/**
 * Pinning a path odek has validated: the identity (device, inode, type) of the object at that path
 * right now, taken so that a later mount or read can be compared with it. The one helper for
 * every path the core validates and then hands to something else (bwrap mounts, checkpoints,
 * project configuration, the new mounts of later containment work): see docs/security.md, "Races".
 *
 * @module
 */
import { OdekError } from "./odek_error.ts";

/** What kind of object a pinned path is. */
export type PinnedType = "directory" | "file" | "socket";

/** The identity of the object at a validated path when it was pinned. */
export interface PinnedPath {
  /** The path, absolute and free of symlinks when it was pinned. */
  path: string;
  /** `st_dev` (a decimal device number, as `stat -c %d` prints it). */
  dev: number;
  /** `st_ino`. */
  ino: number;
  type: PinnedType;
}

/** Options for {@linkcode pinPath}. */
export interface PinPathOptions {
  /** The types accepted. @default every {@linkcode PinnedType} */
  types?: readonly PinnedType[];
}

/**
 * Pin the object at `path`: `lstat` it (the last component must not be a symlink, and its type
 * one of `types`), check that the path is already real (`realpath(path) === path`: no component
 * is a symlink right now), open it and compare the handle's `fstat` (device, inode, type) with the
 * `lstat`, so the object that was opened is the object that was looked at. Sockets are not
 * opened (`open` fails on them); their `lstat` and the realpath check stand. Synchronous: a
 * handful of syscalls, and nothing else runs in between.
 *
 * Every later change that validates a path and then lets something else (bwrap, a child, a read)
 * use it must pin it with this helper and compare what it used with the pin (design §2; issue 12).
 *
 * @param path an absolute, normalised path
 * @param options the types accepted
 * @returns the pin, or `null` when nothing exists at `path`
 * @throws {OdekError} `PATH_CHANGED` when the last component is a symlink, the path is not real,
 *   the type is not accepted, or the opened object is not the one `lstat` saw (a concurrent
 *   rename); the message names the path and what differed
 *
 * @example Pin a directory
 * ```ts
 * import { pinPath } from "./pin_path.ts";
 * const dir = Deno.realPathSync(Deno.makeTempDirSync());
 * const pin = pinPath(dir, { types: ["directory"] });
 * if (pin?.type !== "directory" || pin.ino !== Deno.statSync(dir).ino) throw new Error("wrong pin");
 * Deno.removeSync(dir);
 * ```
 */
export function pinPath(
  path: string,
  options: PinPathOptions = {},
): PinnedPath | null {
  const types = options.types ?? ["directory", "file", "socket"];
  let info: Deno.FileInfo;
  try {
    info = Deno.lstatSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
  const type = typeOf(info);
  if (type === "symlink") changed(path, "it is a symlink");
  if (type === null || !types.includes(type)) {
    changed(
      path,
      `it is ${type === null ? "not a file, directory or socket" : `a ${type}`}`,
    );
  }
  let real: string;
  try {
    real = Deno.realPathSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      changed(path, "it disappeared while it was pinned");
    }
    throw error;
  }
  if (real !== path) changed(path, `it now resolves to ${real}`);
  const pin: PinnedPath = {
    path,
    dev: info.dev,
    ino: info.ino!,
    type: type as PinnedType,
  };
  if (type === "socket") return pin;
  let opened: Deno.FileInfo;
  try {
    using handle = Deno.openSync(path, { read: true });
    opened = handle.statSync();
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      changed(path, "it disappeared while it was pinned");
    }
    if (error instanceof Deno.errors.PermissionDenied) {
      // Unreadable (a write-only target, not as root): the lstat and the realpath check stand.
      return pin;
    }
    throw error;
  }
  if (
    opened.dev !== info.dev || opened.ino !== info.ino ||
    typeOf(opened) !== type
  ) {
    changed(
      path,
      `the object opened (device ${opened.dev}, inode ${opened.ino}) is not the one looked at (device ${info.dev}, inode ${info.ino})`,
    );
  }
  return pin;
}

/**
 * The pin as the sandbox's mount check compares it: `dev:ino`.
 *
 * @param pin a pin from {@linkcode pinPath}
 * @returns `"<dev>:<ino>"`
 *
 * @example
 * ```ts
 * import { pinKey } from "./pin_path.ts";
 * if (pinKey({ path: "/a", dev: 2049, ino: 7, type: "file" }) !== "2049:7") throw new Error();
 * ```
 */
export function pinKey(pin: PinnedPath): string {
  return `${pin.dev}:${pin.ino}`;
}

function typeOf(info: Deno.FileInfo): PinnedType | "symlink" | null {
  if (info.isSymlink) return "symlink";
  if (info.isDirectory) return "directory";
  if (info.isFile) return "file";
  return info.isSocket ? "socket" : null;
}

function changed(path: string, why: string): never {
  throw new OdekError(
    "PATH_CHANGED",
    `Cannot use ${path}: ${why}. Something renamed or replaced it after odek checked it (another program working in the same directories?); nothing was run. Try again once it is back in place.`,
  );
}
