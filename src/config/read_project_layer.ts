/**
 * The project layer: `odek.jsonc` in the workspace root, read per session host (design §8.1)
 * with the open-then-verify reader, validated like every layer, and untrusted (what it may do
 * is `tightenProjectLayer`'s). No walking up; `.odek/config.jsonc` and `odek.json` are reported,
 * not read.
 *
 * @module
 */
import { join } from "node:path";
import { z } from "zod";
import { OdekError } from "../_util/odek_error.ts";
import { readVerifiedFile } from "../_util/read_verified_file.ts";
import { ProjectMcpServersSchema } from "./mcp_servers.ts";
import type { ProjectMcpServer } from "./mcp_servers.ts";
import { type ConfigLayer, ConfigLayerObject } from "./odek_config.ts";
import { REFUSED_TOP_KEYS } from "./project_key_rules.ts";
import { MAX_CONFIG_BYTES, parseConfigText } from "./read_config_file.ts";
import type { LayerFileReport } from "./resolve_config.ts";

/** The name of the project file in the workspace root. */
export const PROJECT_FILE = "odek.jsonc";

/** Names people try that odek does not read: reported with a pointer to {@linkcode PROJECT_FILE}. */
const MISNAMED = ["odek.json", ".odek/config.jsonc", ".odek/config.json", ".odek.jsonc"];

/**
 * A project layer as written: the user schema's keys (refused ones with any value) plus
 * `mcpServers` (inert until approved) and the keys a project may name only to be refused.
 */
export type ProjectLayer = ConfigLayer & {
  mcpServers?: Record<string, ProjectMcpServer>;
  [refused: string]: unknown;
};

const refusedShape = Object.fromEntries(
  REFUSED_TOP_KEYS.map((key) => [key, z.unknown().optional()]),
);

/** The project file's schema: unknown keys are refused, as in the user's file. */
export const ProjectLayerSchema: z.ZodType<ProjectLayer> = ConfigLayerObject.extend({
  ...refusedShape,
  mcpServers: ProjectMcpServersSchema.optional(),
}) as unknown as z.ZodType<ProjectLayer>;

/** What {@linkcode readProjectLayer} found. */
export interface ProjectLayerRead {
  /** `<workspace>/odek.jsonc`. */
  file: string;
  /** The validated layer; `undefined` when there is no file. */
  layer?: ProjectLayer;
  /** The files looked at (the project file, and misnamed ones found). */
  files: LayerFileReport[];
  /** A misnamed file, for the operator. */
  warnings: string[];
}

/**
 * Read `<workspace>/odek.jsonc`: opened, then verified (a symlink on the way, a file that is not
 * regular, or one swapped while it was opened is refused), at most 5 MiB, JSONC, validated.
 *
 * @param workspace the validated workspace (real path)
 * @returns the layer (or none) and the reports
 * @throws {OdekError} `CONFIG_INVALID` naming the file for a refused, oversized, unparseable or
 *   invalid file: a project file that cannot be read stops the run rather than silently losing
 *   the limits it sets
 *
 * @example No project file
 * ```ts
 * import { readProjectLayer } from "./read_project_layer.ts";
 * const dir = Deno.realPathSync(Deno.makeTempDirSync());
 * const read = await readProjectLayer(dir);
 * Deno.removeSync(dir);
 * if (read.layer !== undefined || read.files[0].status !== "absent") throw new Error();
 * ```
 */
export async function readProjectLayer(workspace: string): Promise<ProjectLayerRead> {
  const file = join(workspace, PROJECT_FILE);
  const files: LayerFileReport[] = [];
  const warnings: string[] = [];
  const read = await readVerifiedFile(workspace, PROJECT_FILE, { maxBytes: MAX_CONFIG_BYTES + 1 });
  let layer: ProjectLayer | undefined;
  switch (read.type) {
    case "missing":
      files.push({ kind: "project", path: file, status: "absent" });
      break;
    case "refused":
      throw new OdekError(
        "CONFIG_INVALID",
        `Cannot read the project file ${file}: ${read.reason}. Make it a regular file in the workspace root, or remove it.`,
      );
    case "file": {
      if (read.size > MAX_CONFIG_BYTES) {
        throw new OdekError(
          "CONFIG_INVALID",
          `Cannot read the project file ${file}: it is ${read.size} bytes, more than the 5 MiB a config file may have. Shrink it.`,
        );
      }
      let text: string;
      try {
        text = new TextDecoder("utf-8", { fatal: true }).decode(read.bytes);
      } catch {
        throw new OdekError(
          "CONFIG_INVALID",
          `Cannot read the project file ${file}: it is not UTF-8 text. Fix it or remove it.`,
        );
      }
      layer = parseConfigText(text, file, ProjectLayerSchema);
      files.push({ kind: "project", path: file, status: "read" });
      break;
    }
    default: {
      const unreachable: never = read;
      throw new TypeError(`Unknown read result: ${JSON.stringify(unreachable)}`);
    }
  }
  for (const name of MISNAMED) {
    const path = join(workspace, name);
    if (!(await Deno.lstat(path).then(() => true, () => false))) continue;
    const detail =
      `${path} is not read: odek reads the project file ${file} (the workspace root only). Move its settings there.`;
    files.push({ kind: "project", path, status: "misnamed", detail });
    warnings.push(detail);
  }
  return { file, ...(layer ? { layer } : {}), files, warnings };
}
