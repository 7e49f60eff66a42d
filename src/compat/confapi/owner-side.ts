import type { TenantRegistry } from '../tenants/registry.js';
import type { ClusterMeetings } from './cluster-meetings.js';
import type { ConfapiDeps } from './context.js';
import { failure } from './errors.js';
import { ownerCalls, type OwnerSide } from './node-link.js';
import { Params } from './params.js';
import { calls } from './routes.js';

/**
 * What the owner of a meeting's room runs for another node (issue 35): the call that node
 * verified (checksum and tenant), with this node's handler, registry and memory, never sent on
 * again; and a meeting's live state. Only calls of `ownerCalls` are run: a message naming any
 * other call, or a tenant this node does not know, is refused as a client's would be.
 */
export function ownerSide(registry: TenantRegistry, deps: ConfapiDeps, meetings: ClusterMeetings): OwnerSide {
  return {
    async run(call) {
      const tenant = registry.current().byId.get(call.tenantId);
      if (!tenant) throw failure('checksumError');
      const spec = ownerCalls.has(call.call) && Object.hasOwn(calls, call.call) ? calls[call.call] : undefined;
      if (!spec) throw failure('unsupportedRequest');
      return spec.handler({ call: call.call, tenant, params: new Params(call.params), xmlBody: call.xmlBody, deps });
    },
    live: (roomId, internalId) => meetings.liveHere(roomId, internalId),
  };
}
