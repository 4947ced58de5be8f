/**
 * The MCP client (design §1 "MCP", docs/mcp.md): the configured servers as a per-host tool
 * provider, their status and OAuth files, and the pure parts (tool names, schema
 * normalisation, elicitation shapes). Importing this entry loads no SDK; the provider, logins
 * and connections load it when used.
 *
 * @module
 */
export { type AuthorizationOpener, mcpTools, type McpToolsOptions } from "./mcp_tools.ts";
export { type McpServerStatus, McpStatusFile } from "./mcp_status.ts";
export { type OAuthRecord, OAuthStore } from "./oauth_store.ts";
export { assignToolNames, MODEL_TOOL_NAME, modelToolName } from "./tool_names.ts";
export { MAX_SCHEMA_CHARS, normalizeToolSchema } from "./normalize_tool_schema.ts";
export { toElicitationRequest, toElicitResult } from "./elicitation_request.ts";
