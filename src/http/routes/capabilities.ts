import { Codes } from '../../../protocol/codes.ts';
import { CapabilityIdParams, CapabilityList, CapabilityStatus } from '../../../protocol/schemas/capabilities.ts';
import type { CapabilityService } from '../../capabilities/service.ts';
import { route, type RouteDef } from '../route.ts';

export interface CapabilityRouteDeps {
  capabilities: Pick<CapabilityService, 'list' | 'get' | 'install'>;
}

/** Part B "Capabilities and plugins": capability statuses and background installs (docs/plugins.md). */
export function capabilityRoutes(deps: CapabilityRouteDeps): RouteDef[] {
  const tags = ['capabilities'];
  return [
    route({
      method: 'GET', path: '/api/v1/capabilities', operationId: 'listCapabilities', tags, summary: 'Registered capabilities, checked on this machine',
      data: CapabilityList,
      handler: () => ({ capabilities: deps.capabilities.list() }),
    }),
    route({
      method: 'GET', path: '/api/v1/capabilities/{capability_id}', operationId: 'getCapability', tags, summary: 'One capability\'s status (poll it for install progress)',
      params: CapabilityIdParams, data: CapabilityStatus, codes: [Codes.VALIDATION, Codes.CAPABILITY_NOT_FOUND],
      handler: ({ params }) => deps.capabilities.get(params.capability_id),
    }),
    route({
      method: 'POST', path: '/api/v1/capabilities/{capability_id}:install', operationId: 'installCapability', tags,
      summary: 'Starts a background install and answers the status with install.running true',
      params: CapabilityIdParams, data: CapabilityStatus,
      codes: [Codes.VALIDATION, Codes.CAPABILITY_NOT_FOUND, Codes.CAPABILITY_INSTALL_RUNNING, Codes.CAPABILITY_UNSUPPORTED],
      handler: ({ params }) => deps.capabilities.install(params.capability_id),
    }),
  ];
}
