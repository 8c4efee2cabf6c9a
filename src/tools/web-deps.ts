import { ServiceError, type ServiceDeps } from '../services/request.ts';
import { ToolError, type ToolContext } from './types.ts';

/** The service client's view of a tool call: the resolved [services], the OAuth token source, the turn's signal. */
export function serviceDeps(ctx: ToolContext): ServiceDeps {
  return { services: ctx.config.services, accessToken: (key) => ctx.deps.auth.getAccessToken(key), signal: ctx.signal };
}

/** Service failures become the tool's error text (already free of credentials). */
export function asToolError(err: unknown): never {
  if (err instanceof ServiceError) throw new ToolError(err.message);
  throw err;
}
