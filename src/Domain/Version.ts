/** The version of this service: its API documents, its MCP server and its traces give it. */
export const API_VERSION = "1.1.0"
