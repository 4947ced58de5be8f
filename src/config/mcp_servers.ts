/**
 * The part of an MCP server entry (`mcpServers.<name>`) that odek's project-layer approval needs:
 * what runs (command, arguments), the names of the environment it gets, and the rest of the entry
 * (its sandbox settings, owned by the MCP client) kept as written. The MCP client's own schema
 * (`src/mcp/`) validates the whole entry before a server starts; this one only makes sure a
 * project file's entries can be shown to the operator and hashed.
 *
 * @module
 */
import { z } from "zod";

/**
 * One MCP server entry as a project file writes it (only the shown fields are checked).
 *
 * @example A stdio server with a variable
 * ```ts
 * import type { ProjectMcpServer } from "./mcp_servers.ts";
 * const entry: ProjectMcpServer = { command: "node", args: ["tools/mcp.js"], env: { LOG: "1" } };
 * if (entry.command !== "node") throw new Error();
 * ```
 */
export interface ProjectMcpServer {
  /** The program (`node`, `deno`, an absolute path); absent for a remote (`url`) server. */
  command?: string;
  /** Its arguments. */
  args?: string[];
  /** Environment variables the server gets: their names are shown, never their values. */
  env?: Record<string, string>;
  /** A remote server's URL. */
  url?: string;
  /** Every other key (sandbox settings: network, writable paths, …), as written. */
  [key: string]: unknown;
}

/** Server names as the model sees them in `<server>__<tool>`. */
const NAME = z.string().regex(
  /^[A-Za-z0-9_-]{1,40}$/,
  "a server name of 1 to 40 letters, digits, _ or -",
);

/** One project MCP server entry (other keys pass through unchanged). */
export const ProjectMcpServerSchema: z.ZodType<ProjectMcpServer> = z.looseObject({
  command: z.string().min(1).max(4096).optional(),
  args: z.array(z.string().max(4096)).max(256).optional(),
  env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), z.string().max(65_536)).optional(),
  url: z.string().max(4096).optional(),
}).refine(
  (entry) => entry.command !== undefined || entry.url !== undefined,
  "a server with a command (a stdio server) or a url (an HTTP server)",
);

/** A project file's `mcpServers`. */
export const ProjectMcpServersSchema: z.ZodType<Record<string, ProjectMcpServer>> = z.record(
  NAME,
  ProjectMcpServerSchema,
);
