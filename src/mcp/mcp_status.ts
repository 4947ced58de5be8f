/**
 * What odek last saw of each MCP server (`ODEK_HOME/mcp/status.json`, 0600): its state, the
 * tools it offered and its last error, written by every session host as its servers start, fail
 * and stop, and read by `odek mcp list`.
 *
 * @module
 */
import { join } from "node:path";
import { z } from "zod";

/** One server's last known state. */
export interface McpServerStatus {
  name: string;
  /** `connected` while a host has it running; `stopped` after; `failed` with `lastError`. */
  state: "connected" | "failed" | "stopped";
  /** The model-facing names of its tools at the last start. */
  tools: string[];
  lastError?: string;
  protocolVersion?: string;
  /** When this was recorded (ISO 8601). */
  at?: string;
}

const StatusSchema = z.record(
  z.string(),
  z.object({
    name: z.string(),
    state: z.enum(["connected", "failed", "stopped"]),
    tools: z.array(z.string()),
    lastError: z.string().optional(),
    protocolVersion: z.string().optional(),
    at: z.string().optional(),
  }),
);

/**
 * The status file of one `ODEK_HOME`.
 *
 * @example
 * ```ts
 * import { McpStatusFile } from "./mcp_status.ts";
 * const home = await Deno.makeTempDir();
 * const file = new McpStatusFile(home);
 * await file.update([{ name: "fs", state: "stopped", tools: ["fs__read_file"] }]);
 * if ((await file.read()).fs?.tools[0] !== "fs__read_file") throw new Error("status");
 * await Deno.remove(home, { recursive: true });
 * ```
 */
export class McpStatusFile {
  readonly #file: string;

  /** @param odekHome `ODEK_HOME` */
  constructor(odekHome: string) {
    this.#file = join(odekHome, "mcp", "status.json");
  }

  /** Every server's last status (empty when there is no readable file). */
  async read(): Promise<Record<string, McpServerStatus>> {
    try {
      return StatusSchema.parse(JSON.parse(await Deno.readTextFile(this.#file)));
    } catch {
      return {};
    }
  }

  /** Record these servers' status (others are kept), atomically. */
  async update(servers: readonly McpServerStatus[]): Promise<void> {
    if (servers.length === 0) return;
    const all = await this.read();
    const at = new Date().toISOString();
    for (const server of servers) all[server.name] = { ...server, at };
    await Deno.mkdir(join(this.#file, ".."), { recursive: true, mode: 0o700 });
    const temporary = `${this.#file}.${crypto.randomUUID()}.tmp`;
    await Deno.writeTextFile(temporary, JSON.stringify(all, null, 2), { mode: 0o600 });
    await Deno.rename(temporary, this.#file);
  }
}
