import type { Caller } from '../services/context.js';
import { ServiceError } from '../services/errors.js';
import type { Services } from '../services/services.js';

/**
 * The preview's gate, after the key and its tier are checked and before the call spends the hourly limit:
 * the server must enable the interface (SVC_MCP_ENABLED) and the operator the key's workspace.
 */
export function requireMcp(caller: Caller, services: Services): void {
  const missing = [
    ...(services.mcpEnabled ? [] : ['on this server (SVC_MCP_ENABLED is not true)']),
    ...(caller.mcpEnabled
      ? []
      : [`for workspace ${caller.workspaceId} (svc workspace enable-mcp ${caller.workspaceId})`]),
  ];
  if (missing.length > 0) {
    throw new ServiceError(
      'mcp_not_enabled',
      `the agent tool interface is a preview and is not enabled ${missing.join(' nor ')}`,
    );
  }
}
