import {
  MCP_RESOURCE_TEMPLATES,
  MCP_SERVER_INFO,
  MCP_TOOL_NAMES,
  MCP_TOOLS,
  type McpManifest,
  type McpResource,
  mcpInputJsonSchema,
} from '@svc/contracts';

type ToolEntry = McpManifest['tools'][number];

let tools: ToolEntry[] | undefined;

/** The tools with the JSON Schema of their inputs: the manifest's list, and MCP's tools/list. */
export function toolEntries(): ToolEntry[] {
  tools ??= MCP_TOOL_NAMES.map((name) => ({
    name,
    description: MCP_TOOLS[name].description,
    input_schema: mcpInputJsonSchema(name),
  }));
  return tools;
}

/** The public manifest; `enabled` says whether this server answers tool calls at all; `resources` as listed now. */
export function mcpManifest(enabled: boolean, resources: McpResource[]): McpManifest {
  return {
    ...MCP_SERVER_INFO,
    status: 'preview',
    enabled,
    tools: toolEntries(),
    resources,
    resource_templates: MCP_RESOURCE_TEMPLATES.map((t) => ({ ...t })),
  };
}
